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
}
