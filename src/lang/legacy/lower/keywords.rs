//! The legacy keywords: one table, one entry per keyword, in the order of the keyword index
//! of docs/legacy.md. An entry says in which lists the keyword may stand (match list,
//! position list, `:relation (…)` list) and which function lowers it there; the lowering
//! reads keywords only through this table, and the "did you mean" hints come from it.
//!
//! Takes in: a keyword as written (`:piececount`). Gives out: its entry, or the error for a
//! keyword that is unknown, refused, or standing in the wrong kind of list.
//! Must never: hold a keyword twice (a test checks it), or name a keyword the lowering
//! cannot lower.

use super::relation::Relation;
use super::{err, Cursor, ListState, Lowerer, MatchOptions};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::FilterId;
use crate::lang::legacy::syntax::Item;
use crate::lang::nearest;

/// A lowering that gives one filter: a condition on the game in a match list, a test of
/// the position in a position list.
type Test = fn(&mut Lowerer, &str, Span, &mut Cursor) -> Result<FilterId, Diagnostic>;
/// A position-list keyword that changes how its list is put together (move parts,
/// transforms, counts, scope, flags) rather than adding one test.
type Part = fn(&mut Lowerer, &str, Span, &mut Cursor, &mut ListState, bool) -> Result<(), Diagnostic>;
/// A setting of the outer match list (input file, scope, colour flip, tags).
type Setting = fn(&mut Lowerer, &str, &mut Cursor, &mut MatchOptions) -> Result<(), Diagnostic>;
/// A keyword of a `:relation (…)` list: it fills in the relation.
type RelationPart = fn(&mut Relation, &str, Span, &mut Cursor) -> Result<(), Diagnostic>;

/// What a keyword does in a match list.
pub(super) enum InMatch {
    /// A condition on the game.
    Test(Test),
    /// A setting of the outer match list; not allowed in sub-match lists or after `!`.
    Setting(Setting),
}

/// What a keyword does in a position list.
pub(super) enum InPosition {
    /// One test of the position (a conjunct of the list).
    Test(Test),
    /// A part of the list's shape.
    Part(Part),
}

/// What a keyword does in a `:relation (…)` list.
pub(super) enum InRelation {
    /// It fills in the relation.
    Take(RelationPart),
    /// It is known there but refused, for the reason given.
    Refuse(&'static str),
}

/// The kinds of list a legacy keyword may stand in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The outer `(match …)` list and the header-only sub-match lists.
    MatchList,
    /// A `(position …)` list: a test of one position of the game.
    PositionList,
    /// The list after `:relation`: how a later position relates to this one.
    RelationList,
}

impl Place {
    /// The place's name in messages and in docs/legacy.md.
    pub fn name(self) -> &'static str {
        match self {
            Place::MatchList => "match list",
            Place::PositionList => "position list",
            Place::RelationList => "relation list",
        }
    }
}

/// One legacy keyword and what it does in each kind of list.
pub struct Keyword {
    /// The keyword as written, with its colon (`:piececount`).
    pub word: &'static str,
    pub(super) in_match: Option<InMatch>,
    pub(super) in_position: Option<InPosition>,
    pub(super) in_relation: Option<InRelation>,
    /// A keyword of the old language that cqlrs refuses everywhere, and why.
    refused: Option<&'static str>,
}

impl Keyword {
    /// A keyword that no list takes yet (the builder methods below add its places).
    const fn new(word: &'static str) -> Keyword {
        Keyword { word, in_match: None, in_position: None, in_relation: None, refused: None }
    }
    const fn match_test(mut self, lower: Test) -> Keyword {
        self.in_match = Some(InMatch::Test(lower));
        self
    }
    const fn match_setting(mut self, setting: Setting) -> Keyword {
        self.in_match = Some(InMatch::Setting(setting));
        self
    }
    const fn position_test(mut self, lower: Test) -> Keyword {
        self.in_position = Some(InPosition::Test(lower));
        self
    }
    const fn position_part(mut self, part: Part) -> Keyword {
        self.in_position = Some(InPosition::Part(part));
        self
    }
    /// The same test in match lists and position lists.
    const fn test(self, lower: Test) -> Keyword {
        self.match_test(lower).position_test(lower)
    }
    const fn relation(mut self, part: RelationPart) -> Keyword {
        self.in_relation = Some(InRelation::Take(part));
        self
    }
    const fn relation_refused(mut self, why: &'static str) -> Keyword {
        self.in_relation = Some(InRelation::Refuse(why));
        self
    }
    const fn refused(mut self, why: &'static str) -> Keyword {
        self.refused = Some(why);
        self
    }

    /// Whether the keyword may stand in this kind of list (refused keywords stand nowhere).
    pub fn allowed_in(&self, place: Place) -> bool {
        match place {
            Place::MatchList => self.in_match.is_some(),
            Place::PositionList => self.in_position.is_some(),
            Place::RelationList => matches!(self.in_relation, Some(InRelation::Take(_))),
        }
    }

    /// Why cqlrs refuses the keyword, for keywords of the old language it does not run
    /// (they need a chess engine or tablebases).
    pub fn refusal_reason(&self) -> Option<&'static str> {
        self.refused
    }

    /// The error for a refused keyword.
    pub(super) fn refusal(&self, span: Span) -> Option<Diagnostic> {
        self.refused.map(|why| {
            err(format!("`{}` is not supported by this engine: {why}", self.word), span)
                .with_hint("see docs/compat.md (Legacy) for the keywords cqlrs refuses")
        })
    }
}

/// The entry of a keyword as written (`!` and all: `!:check` has none).
pub fn find(word: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.word == word)
}

/// The keywords allowed in one kind of list, in table order.
pub fn words_in(place: Place) -> Vec<&'static str> {
    KEYWORDS.iter().filter(|k| k.allowed_in(place)).map(|k| k.word).collect()
}

/// The error for a keyword that this kind of list does not take: it belongs in another
/// list, or it is unknown (with the nearest keyword of this list as a hint).
pub(super) fn unknown(kw: &str, span: Span, place: Place) -> Diagnostic {
    if let Some(k) = find(kw) {
        let elsewhere = [Place::PositionList, Place::MatchList, Place::RelationList]
            .into_iter()
            .find(|&other| other != place && k.allowed_in(other));
        if let Some(other) = elsewhere {
            let other = if other == Place::RelationList { "`:relation (…)` list" } else { other.name() };
            return err(format!("`{kw}` belongs in a {other}, not in a {}", place.name()), span);
        }
    }
    let known = words_in(place);
    let what = if place == Place::RelationList { "relation".to_string() } else { place.name().to_string() };
    let d = err(format!("unknown {what} keyword `{kw}`"), span);
    let anagram = |a: &str| {
        let mut v: Vec<char> = a.chars().collect();
        v.sort_unstable();
        v
    };
    let swapped = known.iter().copied().find(|k| k.len() == kw.len() && anagram(k) == anagram(kw));
    match nearest(kw, &known).or(swapped) {
        Some(n) => d.with_hint(format!("did you mean `{n}`?")),
        None if place == Place::RelationList => d.with_hint(format!("a relation list takes {}", known.join(" "))),
        None => d.with_hint(format!("see docs/legacy.md for the keywords of a {}", place.name())),
    }
}

/// Every legacy keyword, in the order of the keyword index of docs/legacy.md.
pub static KEYWORDS: &[Keyword] = &[
    // Match-list keywords.
    Keyword::new(":year").match_test(Lowerer::year),
    Keyword::new(":result").match_test(Lowerer::game_result).position_test(Lowerer::position_result),
    Keyword::new(":player").match_test(Lowerer::player),
    Keyword::new(":whiteplayer").match_test(Lowerer::player),
    Keyword::new(":blackplayer").match_test(Lowerer::player),
    Keyword::new(":elo").test(Lowerer::elo),
    Keyword::new(":whiteelo").test(Lowerer::elo),
    Keyword::new(":blackelo").test(Lowerer::elo),
    Keyword::new(":gamenumber").match_test(Lowerer::game_number),
    Keyword::new(":event").match_test(Lowerer::tag_text),
    Keyword::new(":site").match_test(Lowerer::tag_text),
    Keyword::new(":round").match_test(Lowerer::tag_text),
    Keyword::new(":eco").match_test(Lowerer::tag_text),
    Keyword::new(":annotator").match_test(Lowerer::tag_text),
    Keyword::new(":date").match_test(Lowerer::tag_text),
    Keyword::new(":termination").match_test(Lowerer::tag_text),
    Keyword::new(":variant").test(Lowerer::tag_text),
    Keyword::new(":plycount").match_test(Lowerer::ply_count),
    Keyword::new(":forany").match_setting(Lowerer::for_any),
    Keyword::new(":variations")
        .match_setting(Lowerer::search_variations)
        .position_part(Lowerer::list_scope)
        .relation(Relation::scope),
    Keyword::new(":mainline").match_setting(Lowerer::main_line),
    Keyword::new(":eithercolor").match_setting(Lowerer::either_color),
    Keyword::new(":pgn").match_setting(Lowerer::file_setting),
    Keyword::new(":output").match_setting(Lowerer::file_setting),
    Keyword::new(":and").match_test(Lowerer::match_combination).position_test(Lowerer::position_combination),
    Keyword::new(":or").match_test(Lowerer::match_combination).position_test(Lowerer::position_combination),
    Keyword::new(":not").match_test(Lowerer::match_not).position_part(Lowerer::position_not),
    // Position-list keywords.
    Keyword::new(":check").position_test(Lowerer::check),
    Keyword::new(":mate").position_test(Lowerer::mate),
    Keyword::new(":stalemate").position_test(Lowerer::stalemate),
    Keyword::new(":nocheck").position_test(Lowerer::no_check),
    Keyword::new(":doublecheck").position_test(Lowerer::double_check_keyword),
    Keyword::new(":wtm").position_test(Lowerer::side_to_move),
    Keyword::new(":btm").position_test(Lowerer::side_to_move),
    Keyword::new(":initial").position_test(Lowerer::initial),
    Keyword::new(":terminal").position_test(Lowerer::terminal),
    Keyword::new(":movenumber").position_test(Lowerer::move_number),
    Keyword::new(":halfmovenumber").position_test(Lowerer::move_number),
    Keyword::new(":piececount").position_test(Lowerer::piece_count),
    Keyword::new(":power").position_test(Lowerer::power),
    Keyword::new(":powerdifference").position_test(Lowerer::power_difference),
    Keyword::new(":attackcount").position_test(Lowerer::attack_count),
    Keyword::new(":movefrom").position_part(Lowerer::move_from),
    Keyword::new(":moveto").position_part(Lowerer::move_to),
    Keyword::new(":promote").position_part(Lowerer::promote),
    Keyword::new(":enpassant").position_part(Lowerer::en_passant),
    Keyword::new(":noenpassant").position_test(Lowerer::no_en_passant),
    Keyword::new(":sequence").position_test(Lowerer::sequence),
    Keyword::new(":gappedsequence").position_test(Lowerer::sequence),
    Keyword::new(":matchcount").position_part(Lowerer::match_count),
    Keyword::new(":pretransformmatchcount").position_part(Lowerer::match_count),
    Keyword::new(":nomatch").position_part(Lowerer::no_match),
    Keyword::new(":tagmatch").position_test(Lowerer::tag_match),
    Keyword::new(":ray").position_test(Lowerer::ray),
    Keyword::new(":rayorthogonal").position_test(Lowerer::ray),
    Keyword::new(":raydiagonal").position_test(Lowerer::ray),
    Keyword::new(":rayhorizontal").position_test(Lowerer::ray),
    Keyword::new(":rayvertical").position_test(Lowerer::ray),
    Keyword::new(":rayattack").position_test(Lowerer::ray),
    Keyword::new(":pawncount").position_test(Lowerer::pawn_count),
    Keyword::new(":variationsonly").position_part(Lowerer::list_scope).relation(Relation::scope),
    Keyword::new(":markall").position_part(Lowerer::annotation_only),
    Keyword::new(":noannotate").position_part(Lowerer::annotation_only),
    // Transforms.
    Keyword::new(":flip").position_part(Lowerer::transform).relation(Relation::transform),
    Keyword::new(":flipdihedral").position_part(Lowerer::transform).relation(Relation::transform),
    Keyword::new(":flipvertical").position_part(Lowerer::transform).relation(Relation::transform),
    Keyword::new(":fliphorizontal").position_part(Lowerer::transform).relation(Relation::transform),
    Keyword::new(":flipcolor")
        .position_part(Lowerer::transform)
        .relation_refused("inside `:relation` only the board transforms `:flip…` and `:shift…` are taken"),
    Keyword::new(":shift").position_part(Lowerer::transform).relation(Relation::transform),
    Keyword::new(":shifthorizontal").position_part(Lowerer::transform).relation(Relation::transform),
    Keyword::new(":shiftvertical").position_part(Lowerer::transform).relation(Relation::transform),
    // Relations.
    Keyword::new(":relation").position_part(Lowerer::relation),
    Keyword::new(":missingpiececount").relation(Relation::piece_count),
    Keyword::new(":newpiececount").relation(Relation::piece_count),
    Keyword::new(":originalsamecount").relation(Relation::original_count),
    Keyword::new(":originaldifferentcount").relation(Relation::original_count),
    Keyword::new(":pattern").relation(Relation::pattern),
    Keyword::new(":samesidetomove").relation(Relation::side_to_move),
    Keyword::new(":changesidetomove").relation(Relation::side_to_move),
    Keyword::new(":ignoresidetomove").relation(Relation::side_to_move),
    // Decisions on open points.
    Keyword::new(":isstalemate").position_test(Lowerer::stalemate),
    // Not supported: refused with the reason.
    Keyword::new(":evaluation").refused("it needs a chess engine's evaluation of the position"),
    Keyword::new(":moveevaluation").refused("it needs a chess engine's evaluation of the moves"),
    Keyword::new(":endgameevaluation").refused("it needs endgame tablebases"),
    // CQL-S header fields.
    Keyword::new(":title").match_test(Lowerer::title),
    Keyword::new(":whitetitle").match_test(Lowerer::title),
    Keyword::new(":blacktitle").match_test(Lowerer::title),
    Keyword::new(":country").match_test(Lowerer::country),
    Keyword::new(":whitecountry").match_test(Lowerer::country),
    Keyword::new(":blackcountry").match_test(Lowerer::country),
    Keyword::new(":gender").match_test(Lowerer::gender),
    Keyword::new(":whitegender").match_test(Lowerer::gender),
    Keyword::new(":blackgender").match_test(Lowerer::gender),
    Keyword::new(":iscomputer").match_test(Lowerer::is_computer),
    Keyword::new(":whiteiscomputer").match_test(Lowerer::is_computer),
    Keyword::new(":blackiscomputer").match_test(Lowerer::is_computer),
    Keyword::new(":ishuman").match_test(Lowerer::is_human),
    Keyword::new(":whiteishuman").match_test(Lowerer::is_human),
    Keyword::new(":blackishuman").match_test(Lowerer::is_human),
    Keyword::new(":rating").match_test(Lowerer::rating_keyword),
    Keyword::new(":whiterating").match_test(Lowerer::rating_keyword),
    Keyword::new(":blackrating").match_test(Lowerer::rating_keyword),
    Keyword::new(":averagerating").match_test(Lowerer::average_rating),
    Keyword::new(":averagerating*").match_test(Lowerer::average_rating),
    Keyword::new(":ratingdifference").match_test(Lowerer::rating_difference),
    Keyword::new(":eventtype").match_test(Lowerer::event_type),
    Keyword::new(":eventmode").match_test(Lowerer::event_mode),
    Keyword::new(":eventcountry").match_test(Lowerer::event_country),
    Keyword::new(":eventcategory").match_test(Lowerer::event_category),
    Keyword::new(":eventdate").match_test(Lowerer::event_date),
    Keyword::new(":subround").match_test(Lowerer::sub_round),
    Keyword::new(":timemode").match_test(Lowerer::time_mode),
    Keyword::new(":tag").match_test(Lowerer::tag_keyword),
    Keyword::new(":birthyear").match_test(Lowerer::birth_year),
    Keyword::new(":whitebirthyear").match_test(Lowerer::birth_year),
    Keyword::new(":blackbirthyear").match_test(Lowerer::birth_year),
    Keyword::new(":deathyear").match_test(Lowerer::death_year),
    Keyword::new(":whitedeathyear").match_test(Lowerer::death_year),
    Keyword::new(":blackdeathyear").match_test(Lowerer::death_year),
    Keyword::new(":hasmarker").match_test(Lowerer::has_marker_keyword),
    Keyword::new(":hasspecialmarker").match_test(Lowerer::has_special_marker),
    // Game markers and reading errors.
    Keyword::new(":error").match_test(Lowerer::game_error),
    // Game facts.
    Keyword::new(":hascomments").match_test(Lowerer::has_comments),
    Keyword::new(":hasvariations").match_test(Lowerer::has_variations),
    Keyword::new(":hasannotation").match_test(Lowerer::has_annotation),
    Keyword::new(":comment").match_test(Lowerer::comment),
    Keyword::new(":ischess960").match_test(Lowerer::shuffle_start),
    Keyword::new(":isshufflechess").match_test(Lowerer::shuffle_start),
    Keyword::new(":startposition").match_test(Lowerer::start_position),
    Keyword::new(":goodgame").match_test(Lowerer::good_game),
    // `:xor` and `:cond`.
    Keyword::new(":xor").match_test(Lowerer::match_combination).position_test(Lowerer::position_combination),
    Keyword::new(":cond").match_test(Lowerer::match_cond).position_test(Lowerer::position_cond),
    // Position facts.
    Keyword::new(":castling").position_test(Lowerer::castling),
    Keyword::new(":halfmoveclock").position_test(Lowerer::halfmove_clock),
    Keyword::new(":threefoldrepetition").position_test(Lowerer::repetition),
    Keyword::new(":fivefoldrepetition").position_test(Lowerer::repetition),
    Keyword::new(":checkcount").position_test(Lowerer::check_count),
    Keyword::new(":contactcheck").position_test(Lowerer::contact_check_keyword),
    Keyword::new(":ischeck").position_test(Lowerer::next_move_check),
    Keyword::new(":isdoublecheck").position_test(Lowerer::next_move_check),
    Keyword::new(":iscontactcheck").position_test(Lowerer::next_move_check),
    Keyword::new(":ismate").position_test(Lowerer::next_move_check),
    Keyword::new(":iscastling").position_test(Lowerer::is_castling),
    Keyword::new(":isnull").position_test(Lowerer::is_null),
    Keyword::new(":forced").position_test(Lowerer::forced),
    Keyword::new(":isillegal").position_test(Lowerer::is_illegal),
    Keyword::new(":isinvalid").position_test(Lowerer::is_invalid),
    Keyword::new(":opposition").position_test(Lowerer::opposition),
    Keyword::new(":goodbishop").position_test(Lowerer::good_bishop),
    Keyword::new(":whitecannotwin").position_test(Lowerer::cannot_win_keyword),
    Keyword::new(":blackcannotwin").position_test(Lowerer::cannot_win_keyword),
    Keyword::new(":matingmaterial").position_test(Lowerer::mating_material),
    Keyword::new(":gameisover").position_test(Lowerer::game_is_over),
    Keyword::new(":endgame").position_test(Lowerer::endgame),
    Keyword::new(":exchangeevaluation").position_test(Lowerer::exchange_evaluation),
    Keyword::new(":maxswapevaluation").position_test(Lowerer::max_swap_evaluation),
    Keyword::new(":fen").position_test(Lowerer::fen),
    Keyword::new(":losing").position_test(Lowerer::losing),
    Keyword::new(":mustcapture").position_test(Lowerer::antichess_only),
    Keyword::new(":captureforced").position_test(Lowerer::antichess_only),
    Keyword::new(":takeslastpiece").position_test(Lowerer::antichess_only),
    Keyword::new(":insidevariation").position_test(Lowerer::inside_variation),
    Keyword::new(":pawncountdifference").position_test(Lowerer::pawn_count_difference),
    // Accumulators, transforms, control.
    Keyword::new(":accumulate").position_part(Lowerer::accumulate),
    Keyword::new(":sumrange").position_part(Lowerer::sum_range),
    Keyword::new(":accumulate*").position_part(Lowerer::accumulate),
    Keyword::new(":reset").position_part(Lowerer::reset),
    Keyword::new(":flipdiagonal").position_part(Lowerer::diagonal_flip).relation(Relation::transform),
    Keyword::new(":flipoffdiagonal").position_part(Lowerer::diagonal_flip).relation(Relation::transform),
    Keyword::new(":shiftmaindiagonal").position_part(Lowerer::diagonal_shift).relation(Relation::transform),
    Keyword::new(":shiftoffdiagonal").position_part(Lowerer::diagonal_shift).relation(Relation::transform),
    Keyword::new(":shiftdiagonal").position_part(Lowerer::diagonal_shift),
    Keyword::new(":inside").position_test(Lowerer::inside),
    Keyword::new(":line").position_test(Lowerer::line),
    Keyword::new(":matchconsecutive").position_test(Lowerer::match_consecutive),
    Keyword::new(":match").position_test(Lowerer::position_match),
    Keyword::new(":repetitioncount").position_part(Lowerer::repetition_count),
    Keyword::new(":pretransformrepetitioncount").position_part(Lowerer::repetition_count),
    Keyword::new(":cut").position_part(Lowerer::cut_or_exclude),
    Keyword::new(":exclude").position_part(Lowerer::cut_or_exclude),
    Keyword::new(":skip").position_test(Lowerer::skip),
];

impl Lowerer {
    /// `:relation (…)`: read the relation; it is lowered when the list is finished.
    pub(super) fn relation(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        let (items, lspan) = c.list(kw, "a relation list such as `(:originaldifferentcount 1)`")?;
        let mut rel = Relation::new(span, lspan);
        let mut rc = Cursor { items, next: 0, list_span: lspan };
        while let Some(item) = rc.take() {
            let (word, wspan) = match item {
                Item::Atom { text, span, quoted: false } => (text.as_str(), *span),
                other => {
                    return Err(err("expected a relation keyword", other.span())
                        .with_hint("a relation list holds keywords such as `:missingpiececount U 0`"))
                }
            };
            let keyword = find(word);
            if let Some(d) = keyword.and_then(|k| k.refusal(wspan)) {
                return Err(d);
            }
            match keyword.and_then(|k| k.in_relation.as_ref()) {
                Some(InRelation::Take(read)) => read(&mut rel, word, wspan, &mut rc)?,
                Some(InRelation::Refuse(why)) => {
                    return Err(err(format!("`{word}` inside `:relation` is not supported by this engine"), wspan)
                        .with_hint(*why))
                }
                None => return Err(unknown(word, wspan, Place::RelationList)),
            }
        }
        st.relations.push(rel);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The rows of the keyword index of docs/legacy.md: keyword and where it stands.
    fn documented() -> Vec<(String, String)> {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/legacy.md"))
            .expect("docs/legacy.md is readable");
        let section =
            doc.split("\n## Keyword index\n").nth(1).expect("docs/legacy.md has a `## Keyword index` section");
        let section = section.split("\n## ").next().unwrap_or(section);
        section
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                let word = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
                Some((word.to_string(), cells.get(2)?.to_string()))
            })
            .collect()
    }

    /// Where a keyword stands, written as in the index.
    fn places(k: &Keyword) -> String {
        if k.refusal_reason().is_some() {
            return "refused".to_string();
        }
        let mut out = Vec::new();
        for (place, name) in
            [(Place::MatchList, "match"), (Place::PositionList, "position"), (Place::RelationList, "relation")]
        {
            if k.allowed_in(place) {
                out.push(name);
            }
        }
        out.join(", ")
    }

    #[test]
    fn the_table_is_the_documented_keyword_index_in_its_order() {
        let doc = documented();
        assert!(doc.len() > 150, "the keyword index of docs/legacy.md has only {} rows", doc.len());
        let table: Vec<(String, String)> = KEYWORDS.iter().map(|k| (k.word.to_string(), places(k))).collect();
        for (i, (d, t)) in doc.iter().zip(&table).enumerate() {
            assert_eq!(d, t, "row {} of the keyword index differs from the table", i + 1);
        }
        assert_eq!(doc.len(), table.len(), "the index and the table have different lengths");
    }

    #[test]
    fn no_keyword_appears_twice() {
        let mut seen = HashSet::new();
        for k in KEYWORDS {
            assert!(seen.insert(k.word), "`{}` is in the table twice", k.word);
        }
    }

    #[test]
    fn every_keyword_has_a_place_or_a_refusal() {
        for k in KEYWORDS {
            let placed = [Place::MatchList, Place::PositionList, Place::RelationList].iter().any(|&p| k.allowed_in(p));
            assert!(placed != k.refusal_reason().is_some(), "`{}` must either stand somewhere or be refused", k.word);
            assert!(k.word.starts_with(':') && k.word.len() > 1, "`{}` is not a keyword", k.word);
        }
    }
}
