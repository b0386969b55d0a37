//! The problemists' mates of CQL 6.2: `puremate`, `modelmate`, `idealmate` and
//! `purestalemate`, `modelstalemate`, `idealstalemate`.
//!
//! Part of the CQL 6 parser ([`super`]). CQL 6.2 defines these six keywords in its own
//! language (its built-in mate functions, loaded by `Tokens::match_matefunction`): each is
//! `notransform flipcolor { QUALITY PARTICIPANTS }`, so it matches when either side is
//! mated (or stalemated) in that way, and its value is the set of squares of the units that
//! take part. cqlrs does the same: the keyword is replaced by a CQL 6 text written here,
//! parsed in place, so that every rule (attack arrows through the king, pins, pseudolegal
//! replies) is evaluated exactly as the same filters written by a user. The rules, for the
//! copy in which Black is mated (the other copy swaps the colours):
//!
//! * the *field* is the squares next to the black king;
//! * a white unit *guards* a field square it attacks; a checking unit also guards the whole
//!   field (the king cannot step away along or beside the line of a check);
//! * **pure mate**: Black is mated; every field square that is empty or holds a white unit
//!   is guarded by exactly one white unit; a black unit in the field is unguarded, or, in a
//!   single check, guarded once, pinned and able (pseudolegally) to capture the checker or
//!   block the check, or to capture en passant; in a double check each checker is needed
//!   (an unpinned black unit other than the king could capture or block the other one);
//! * the white units that *take part*: checkers, units attacking the field, pinned white
//!   units, and in a single check the units pinning or attacking a black unit that could
//!   otherwise refute the check (capture the checker, block it, or reach the white king's
//!   square);
//! * the black units that take part: the king, units in the field, units attacked by a
//!   black unit while attacking the white king, and in a single check units attacked by a
//!   black unit while attacking a refuting square;
//! * **model mate**: pure, and every white queen, rook, bishop and knight takes part;
//! * **ideal mate**: pure, and every white and every black unit takes part;
//! * **pure stalemate**: Black is stalemated; every empty or white-occupied field square is
//!   attacked by exactly one white unit; a pinned black unit in the field is attacked by
//!   exactly one white unit, an unpinned one by none;
//! * stalemate participants: white units pinned, white units pinning, and white units
//!   attacking the field, together with all black units;
//! * **model** / **ideal stalemate**: pure, and every white officer / every white unit
//!   takes part.

use super::*;

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] =
    &["idealmate", "idealstalemate", "modelmate", "modelstalemate", "puremate", "purestalemate"];

/// Which of the six keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quality {
    Pure,
    Model,
    Ideal,
}

/// Prefix of the variables of the built-in texts: a word no script can write once the
/// prefix is replaced by a name with a space in it (see [`Parser::parse_mate_word`]).
const VAR_PREFIX: &str = "cqlrsmate";

/// The CQL 6 text of one keyword, with variables named `cqlrsmate…`.
fn mate_text(quality: Quality, stalemate: bool) -> String {
    let field = "(a-h1-8 <- k)";
    if stalemate {
        let pure = format!(
            "btm stalemate \
             square all cqlrsmateF in {field} & [A_] (A -> cqlrsmateF) == 1 \
             square all cqlrsmateS in {field} & a & pin (A -> cqlrsmateS) == 1 \
             square all cqlrsmateS in {field} & a & ~pin not (A -> cqlrsmateS)"
        );
        let white = format!("(pin through A | pin from A | (A -> {field}))");
        let extra = match quality {
            Quality::Pure => String::new(),
            Quality::Model => format!("[RBNQ] in {white}"),
            Quality::Ideal => format!("A == {white}"),
        };
        return format!("notransform flipcolor {{ {pure} {extra} {white} | a }}");
    }
    let checkers = "(A -> k)";
    let guarded_by = |unit: &str| format!("(({field} <- {unit}) | ({field} <- k <- {unit}))");
    // The white units guarding square `t` of the field (a set; its size is compared).
    let guards_of = |t: &str| format!("(square cqlrsmateG in A {{ {t} & {} }})", guarded_by("cqlrsmateG"));
    let refuting_squares = format!("(K | {checkers} | between({checkers} k))");
    let refuters = format!("(square cqlrsmateT in a {{ pseudolegal cqlrsmateT--{{ {refuting_squares} }} }})");
    let pure = format!(
        "btm mate \
         square all cqlrsmateF in {field} & [_A] {flight} == 1 \
         square all cqlrsmateS in {field} & a {{ \
           cqlrsmateSG = {blocker} \
           if {checkers} > 1 cqlrsmateSG == 0 \
           else {{ cqlrsmateSG == 0 or {{ cqlrsmateSG == 1 pin through cqlrsmateS \
             {{ pseudolegal cqlrsmateS--{{ {checkers} | between({checkers} k) }} }} \
             or {{ pseudolegal cqlrsmateS--(enpassant) }} }} }} }} \
         if {checkers} > 1 square all cqlrsmateC in {checkers} {{ \
           cqlrsmateO = {checkers} & ~cqlrsmateC \
           cqlrsmateR = cqlrsmateO | between(cqlrsmateO k) \
           cqlrsmateN = {{ a & ~pin }} & ~k \
           cqlrsmateN -> cqlrsmateR }}",
        flight = guards_of("cqlrsmateF"),
        blocker = guards_of("cqlrsmateS"),
    );
    let white = format!(
        "(square cqlrsmateW in A {{ cqlrsmateW in {checkers} \
           or cqlrsmateW -> {field} \
           or pin through cqlrsmateW \
           or {checkers} == 1 and pin from cqlrsmateW through {refuters} \
           or {checkers} == 1 and {refuters} -> cqlrsmateW -> {refuting_squares} }})"
    );
    let black = format!(
        "(square cqlrsmateX in a {{ cqlrsmateX == k \
           or cqlrsmateX in {field} \
           or a -> cqlrsmateX -> K \
           or {checkers} == 1 and a -> cqlrsmateX -> {refuting_squares} }})"
    );
    let extra = match quality {
        Quality::Pure => String::new(),
        Quality::Model => format!("[RNBQ] in {white}"),
        Quality::Ideal => format!("A == {white} a == {black}"),
    };
    format!("notransform flipcolor {{ {pure} {extra} {white} | {black} }}")
}

impl Parser<'_> {
    /// `puremate`, `modelmate`, `idealmate`, `purestalemate`, `modelstalemate`,
    /// `idealstalemate` (the word has been consumed): the filter CQL 6.2 defines for it,
    /// parsed from [`mate_text`] in place of the word, every token placed at the word.
    /// `Ok(None)` when `w` is none of them.
    pub(super) fn parse_mate_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        let (quality, stalemate) = match w {
            "puremate" => (Quality::Pure, false),
            "modelmate" => (Quality::Model, false),
            "idealmate" => (Quality::Ideal, false),
            "purestalemate" => (Quality::Pure, true),
            "modelstalemate" => (Quality::Model, true),
            "idealstalemate" => (Quality::Ideal, true),
            _ => return Ok(None),
        };
        let lexed = super::super::lexer::lex(&mate_text(quality, stalemate));
        debug_assert!(lexed.diagnostics.is_empty(), "{:?}", lexed.diagnostics);
        let line = self.toks[self.pos.saturating_sub(1)].line;
        let mut tokens: Vec<Token> = lexed
            .tokens
            .into_iter()
            .map(|mut t| {
                if let Tok::Word(name) = &t.tok {
                    if let Some(rest) = name.strip_prefix(VAR_PREFIX) {
                        t.tok = Tok::Word(format!("{w} {rest}"));
                    }
                }
                t.span = sp;
                t.line = line;
                t.blank_before = false;
                t
            })
            .collect();
        // The text is one filter; parse it as the sole content of a block.
        let brace = |tok: Sym| Token { tok: Tok::Sym(tok), span: sp, space_before: true, line, blank_before: false };
        tokens.pop(); // the end-of-text token
        tokens.insert(0, brace(Sym::LBrace));
        tokens.push(brace(Sym::RBrace));
        tokens.push(Token { tok: Tok::Eof, span: sp, space_before: true, line, blank_before: false });
        let saved_toks = std::mem::replace(&mut self.toks, tokens);
        let saved_pos = std::mem::replace(&mut self.pos, 0);
        let saved_sequence = std::mem::replace(&mut self.in_sequence, false);
        self.tree.suspend();
        let r = self.parse_block(Sym::RBrace, true);
        self.tree.resume();
        self.in_sequence = saved_sequence;
        self.toks = saved_toks;
        self.pos = saved_pos;
        r.map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mate_text_parses_as_one_filter() {
        for (q, s) in [(Quality::Pure, false), (Quality::Model, false), (Quality::Ideal, false)].into_iter().chain([
            (Quality::Pure, true),
            (Quality::Model, true),
            (Quality::Ideal, true),
        ]) {
            let text = format!("cql() {}", mate_text(q, s));
            let ir = crate::lang::cql6::parse(&text).unwrap_or_else(|e| panic!("{q:?} {s}: {e:?}"));
            assert!(crate::ir::dump::dump(&ir).contains("NoTransform"), "{q:?} {s}");
        }
    }

    #[test]
    fn the_keywords_are_a_set_and_leave_user_variables_alone() {
        // The value is a set (`#` counts it), and a user variable named like a helper one
        // is not touched.
        let ir = crate::lang::cql6::parse("cql() F = 3 #idealmate > 2 F == 3").expect("parses");
        let names: Vec<&str> = ir.vars.iter().map(|v| v.name.as_str()).collect();
        assert!(names.contains(&"F"), "{names:?}");
        assert!(names.iter().any(|n| n.starts_with("idealmate ")), "{names:?}");
        assert!(crate::lang::cql6::parse("cql() x = modelstalemate #x > 3").is_ok());
    }
}
