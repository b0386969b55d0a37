//! CQL 6.2 dictionaries: maps from keys to values kept by the evaluator.
//!
//! Takes in: values produced by filters. Gives out: [`Dict`], its keys, the merge of the
//! copies kept by several worker threads, and the printed form of a dictionary.
//! Must never: look at a game except through the values handed to it.

use std::collections::BTreeMap;

use shakmaty::Bitboard;

use super::value::{squares_text, Value};
use crate::pgn::NodeId;

/// The key of one dictionary entry. Keys of different kinds are never equal: the string
/// `"1"` and the number `1` are two keys.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DictKey {
    /// A number key (`D[3]`, `D[pathcount]`).
    Number(i64),
    /// A string key (`D["Kasparov"]`).
    Str(String),
    /// A set of squares (`D[a1]`, `D[♖]`), compared square by square.
    Set(u64),
    /// A position of the current game (`D[currentposition]`).
    Position(NodeId),
}

impl DictKey {
    /// The key for a value, if that kind of value can be a key (a piece identity is first
    /// turned into its square by the caller; a value-less match is no key).
    pub fn of(value: &Value) -> Option<DictKey> {
        match value {
            Value::Number(n) => Some(DictKey::Number(*n)),
            Value::Str(s) => Some(DictKey::Str(s.clone())),
            Value::Set(b) => Some(DictKey::Set(b.0)),
            Value::Position(n) => Some(DictKey::Position(*n)),
            Value::Piece(_) | Value::None => None,
        }
    }

    /// The key as the user would write it: numbers plain, strings quoted, squares listed.
    fn text(&self) -> String {
        match self {
            DictKey::Number(n) => n.to_string(),
            DictKey::Str(s) => format!("{s:?}"),
            DictKey::Set(b) => squares_text(Bitboard(*b)),
            DictKey::Position(n) => format!("position {}", n.0),
        }
    }
}

/// One dictionary: its entries in key order.
pub type Dict = BTreeMap<DictKey, Value>;

/// Merge the copies of one persistent dictionary kept by several workers: the union of
/// their entries; numbers stored under the same key are added up (as persistent numeric
/// variables are), any other value is taken from the last copy that has the key.
pub fn merge<'a>(copies: impl IntoIterator<Item = &'a Dict>) -> Dict {
    let mut out = Dict::new();
    for copy in copies {
        for (k, v) in copy {
            match (out.get_mut(k), v) {
                (Some(Value::Number(a)), Value::Number(b)) => *a = a.saturating_add(*b),
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
    }
    out
}

/// A dictionary printed for the end-of-run summary: `{key: value, …}` in key order.
pub fn text(dict: &Dict) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in dict.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&k.text());
        out.push_str(": ");
        out.push_str(&match v {
            Value::Number(n) => n.to_string(),
            Value::Str(s) => format!("{s:?}"),
            Value::Set(b) => squares_text(*b),
            Value::Position(n) => format!("position {}", n.0),
            Value::Piece(p) => format!("piece {p}"),
            Value::None => "true".to_string(),
        });
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    #[test]
    fn keys_of_each_kind_are_distinct() {
        assert_eq!(DictKey::of(&Value::Number(1)), Some(DictKey::Number(1)));
        assert_ne!(DictKey::of(&Value::Str("1".into())), DictKey::of(&Value::Number(1)));
        assert_eq!(DictKey::of(&Value::square(Square::A1)), Some(DictKey::Set(1)));
        assert_eq!(DictKey::of(&Value::Position(NodeId(4))), Some(DictKey::Position(NodeId(4))));
        assert_eq!(DictKey::of(&Value::None), None);
    }

    #[test]
    fn merging_adds_numbers_and_unites_keys() {
        let mut a = Dict::new();
        a.insert(DictKey::Str("Kasparov".into()), Value::Number(2));
        a.insert(DictKey::Number(1), Value::Str("x".into()));
        let mut b = Dict::new();
        b.insert(DictKey::Str("Kasparov".into()), Value::Number(3));
        b.insert(DictKey::Str("Karpov".into()), Value::Number(1));
        let m = merge([&a, &b]);
        assert_eq!(m.len(), 3);
        assert_eq!(m[&DictKey::Str("Kasparov".into())], Value::Number(5));
        assert_eq!(text(&m), "{1: \"x\", \"Karpov\": 1, \"Kasparov\": 5}");
    }

    #[test]
    fn sets_print_as_square_lists() {
        let mut d = Dict::new();
        d.insert(DictKey::Set(Bitboard::from(Square::C7).0), Value::square(Square::E4));
        assert_eq!(text(&d), "{c7: e4}");
        assert_eq!(text(&Dict::new()), "{}");
    }

    // ----- dictionaries in scripts, on a small game ------------------------------

    use crate::eval::{GameMatch, Query, Scratch};
    use crate::pgn::GameBuilder;

    /// 1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6 4.Qxf7#
    fn scholars_mate() -> (crate::pgn::Game, Vec<NodeId>) {
        let mut b = GameBuilder::new(1);
        let line = b.line(NodeId::ROOT, &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]).unwrap();
        (b.finish(None), line)
    }

    fn query(src: &str) -> Query {
        Query::compile(src, &mut crate::CompileOptions::default()).expect("query compiles")
    }

    fn run(q: &Query, scratch: &mut Scratch, game: &crate::pgn::Game) -> GameMatch {
        q.eval_game(scratch, game)
    }

    #[test]
    fn a_local_dictionary_starts_empty_in_every_game() {
        let (game, line) = scholars_mate();
        let q = query("cql() local dictionary D D[ply]=movenumber #D == ply + 1");
        let mut scratch = Scratch::default();
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), line.len() + 1);
        // The second game sees none of the first game's entries.
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), line.len() + 1);
    }

    #[test]
    fn a_plain_dictionary_keeps_its_entries_from_game_to_game() {
        let (game, line) = scholars_mate();
        let q = query("cql() dictionary D D[ply]=1 #D == ply + 1");
        assert!(q.sequential());
        let mut scratch = Scratch::default();
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), line.len() + 1);
        // Now every ply is already a key: 8 entries, so only ply 7 fits.
        assert_eq!(run(&q, &mut scratch, &game).positions, vec![line[6]]);
        assert!(!query("cql() local dictionary D D[1]=1").sequential());
    }

    #[test]
    fn a_missing_key_does_not_match() {
        let (game, line) = scholars_mate();
        let mut scratch = Scratch::default();
        // Only the key "x" is ever stored; reading "y" fails everywhere.
        let q = query("cql() local dictionary D D[\"x\"]=ply D[\"y\"]");
        assert!(!run(&q, &mut scratch, &game).matched);
        // The value stored under a position key, read back one ply later through `parent`.
        let q = query("cql() local dictionary D D[currentposition]=ply D[parent] == ply - 1");
        assert_eq!(run(&q, &mut scratch, &game).positions, line);
    }

    #[test]
    fn set_values_and_set_keys() {
        let (game, line) = scholars_mate();
        let mut scratch = Scratch::default();
        // Key: the square the queen stands on; value: where the black king is. Read back by
        // the same key, the stored set equals the king's square; `#D==1` holds only while the
        // queen is still on d1 (the first five positions), her later squares add keys.
        let q = query("cql() local dictionary D D[Q]=k D[Q]==e8 D[Q]==k #D==1");
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), 5);
        // A stored empty set matches as a filter: the key has an entry (CQL 6.2's
        // `DictionaryRetrieveNode::match_position`); a key without one does not.
        let q = query("cql() local dictionary D D[1]=[] D[1] not D[2]");
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), line.len() + 1);
        // Where a set is read, a missing key of a dictionary of sets is the empty set.
        let q = query("cql() local dictionary D D[1]=k D[2] == [] not D[2]");
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), line.len() + 1);
        let q = query("cql() local dictionary D D[1]=k x = D[2] #x == 0");
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), line.len() + 1);
    }

    #[test]
    fn a_missing_key_is_the_empty_set_once_the_dictionary_holds_a_set() {
        let (game, line) = scholars_mate();
        let mut scratch = Scratch::default();
        // The text tells that `D` holds sets (`k` is a set by its form), but while it is
        // still empty a missing key reads as nothing: here `D[2]` is read before anything
        // is stored, at every position.
        let q = query("cql() local dictionary D D[2] == [] D[1]=k");
        assert!(!run(&q, &mut scratch, &game).matched);
        // The text does not tell (a variable is stored): the stored entry does.
        let q = query("cql() local dictionary D S = k D[1] = S D[2] == []");
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), line.len() + 1);
    }

    #[test]
    fn unbind_removes_one_entry_or_all() {
        let (game, _) = scholars_mate();
        let mut scratch = Scratch::default();
        let q = query("cql() local dictionary D D[1]=1 D[2]=2 unbind D[1] #D==1 not D[1] D[2]==2 unbind D #D==0");
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), 8);
        // Removing a key that is not there still matches.
        let q = query("cql() local dictionary D D[1]=1 unbind D[7] #D==1");
        assert_eq!(run(&q, &mut scratch, &game).positions.len(), 8);
    }

    #[test]
    fn persistent_counts_are_merged_over_workers() {
        let (game, _) = scholars_mate();
        let q = query("cql() persistent dictionary Moves Moves[sidetomove] += 1");
        let mut s1 = Scratch::default();
        let mut s2 = Scratch::default();
        run(&q, &mut s1, &game);
        run(&q, &mut s1, &game);
        run(&q, &mut s2, &game);
        // 8 positions a game, 4 with White to move (1) and 4 with Black (-1), three games.
        assert_eq!(q.persistent_totals(&[s1, s2]), vec![("Moves".to_string(), "{-1: 12, 1: 12}".to_string())]);
    }

    #[test]
    fn compound_assignment_on_strings_appends() {
        let (game, _) = scholars_mate();
        let q = query("cql() local dictionary D D[0] += \"a\" D[0] += \"b\" D[0] == \"0b\"");
        // An absent entry starts as 0: `+= "a"` is no number, so nothing is stored and the
        // filter does not match.
        assert!(!run(&q, &mut Scratch::default(), &game).matched);
        let q = query("cql() local dictionary D D[0] = \"a\" D[0] += \"b\" D[0] == \"ab\"");
        assert_eq!(run(&q, &mut Scratch::default(), &game).positions.len(), 8);
    }

    #[test]
    fn tags_do_not_skip_a_game_after_a_write_kept_for_later_games() {
        let mut b = GameBuilder::new(1);
        b.line(NodeId::ROOT, &["e4", "e5"]).unwrap();
        b.tag("Result", "0-1");
        // The count must see the Black win too, although `result 1-0` then fails.
        let q = query("cql() dictionary Games initial Games[1] += 1 result 1-0");
        assert!(q.may_match_tags(&crate::eval::Scratch::default(), b.game()));
        // Tags tested before the write, or a local dictionary, may still skip the game.
        assert!(!query("cql() dictionary Games result 1-0 Games[1] += 1")
            .may_match_tags(&crate::eval::Scratch::default(), b.game()));
        assert!(!query("cql() local dictionary Games Games[1] += 1 result 1-0")
            .may_match_tags(&crate::eval::Scratch::default(), b.game()));
    }
}
