//! Game keywords: the outer match list's settings (`:forany`, `:variations`, `:mainline`,
//! `:eithercolor`, `:pgn`, `:output`) and the CQL-S facts about the whole game (comments,
//! variations, NAGs, the start set-up, `:goodgame`, Scidb's markers and reading errors).
//!
//! Takes in: one keyword and the cursor after it. Gives out: settings in the IR or the
//! match list's options, or a filter evaluated at the start of the game that searches it.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use super::{err, Cursor, Lowerer, MatchOptions};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::legacy::marker;
use crate::ir::{Filter, FilterId, FindDirection, LegacyFact, TreeStep};
use crate::ir::{GameTreeFilter, LogicFilter, NumberFilter, OutputFilter, PositionStateFilter};
use crate::lang::legacy::designator::Range;
use crate::lang::legacy::syntax::Item;

impl Lowerer {
    /// `:forany name D`: the tag was declared before the list was read; skip its words.
    pub(super) fn for_any(&mut self, _kw: &str, c: &mut Cursor, _o: &mut MatchOptions) -> Result<(), Diagnostic> {
        c.next += 2;
        Ok(())
    }

    /// `:variations` in the match list: every list also searches variations.
    pub(super) fn search_variations(
        &mut self,
        _kw: &str,
        _c: &mut Cursor,
        options: &mut MatchOptions,
    ) -> Result<(), Diagnostic> {
        options.variations = true;
        Ok(())
    }

    /// `:mainline`: the default scope; nothing to do.
    pub(super) fn main_line(&mut self, _kw: &str, _c: &mut Cursor, _o: &mut MatchOptions) -> Result<(), Diagnostic> {
        Ok(())
    }

    /// `:eithercolor`: the whole match list under a colour flip.
    pub(super) fn either_color(
        &mut self,
        _kw: &str,
        _c: &mut Cursor,
        options: &mut MatchOptions,
    ) -> Result<(), Diagnostic> {
        options.either_color = true;
        Ok(())
    }

    /// `:pgn file` (an input file) and `:output file`.
    pub(super) fn file_setting(&mut self, kw: &str, c: &mut Cursor, _o: &mut MatchOptions) -> Result<(), Diagnostic> {
        let (file, _) = c.atom(kw, "a file name")?;
        if kw == ":pgn" {
            self.ir.settings.input.push(file.to_string());
        } else {
            self.ir.settings.output = Some(file.to_string());
        }
        Ok(())
    }

    /// `:comment "text"`: some comment of the game contains the text.
    pub(super) fn comment(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, ts) = c.atom(kw, "a text in double quotes")?;
        let comment = self.add(Filter::Output(OutputFilter::OriginalComment), span);
        let needle = self.add(Filter::Numbers(NumberFilter::Str(text.to_string())), ts);
        let has =
            self.add(Filter::Numbers(NumberFilter::Contains { haystack: comment, needle, ignore_case: true }), span);
        Ok(self.whole_game(has, span))
    }

    /// `:hascomments [languages]`: the game has a comment. PGN comments carry no
    /// language, so every comment counts and the optional list of codes is skipped.
    pub(super) fn has_comments(&mut self, _kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        if let Some(Item::Atom { text, quoted: false, .. }) = c.peek() {
            if !text.is_empty()
                && text.split(',').all(|p| (2..=3).contains(&p.len()) && p.chars().all(|ch| ch.is_ascii_alphabetic()))
            {
                c.take();
            }
        }
        let has = self.add(Filter::Output(OutputFilter::HasComment), span);
        Ok(self.whole_game(has, span))
    }

    /// `:hasvariations`: the game has a variation.
    pub(super) fn has_variations(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let v = self.add(Filter::PositionState(PositionStateFilter::Variation), span);
        Ok(self.whole_game(v, span))
    }

    /// `:hasannotation`: the game has a NAG.
    pub(super) fn has_annotation(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let v = self.add(Filter::LegacyFact(LegacyFact::HasNag), span);
        Ok(self.whole_game(v, span))
    }

    /// `:ischess960`, `:isshufflechess`: the start set-up is a Chess960 (Shuffle Chess) one.
    pub(super) fn shuffle_start(&mut self, kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::LegacyFact(LegacyFact::ShuffleStart { chess960: kw == ":ischess960" }), span))
    }

    /// `:startposition list`: the Chess960 number of the start set-up (0: not shuffled).
    pub(super) fn start_position(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (vals, vs) = self.comma_list(kw, c, "start position numbers such as `518`")?;
        let mut alternatives = Vec::new();
        for v in vals {
            let n: i64 = v.parse().map_err(|_| {
                err(format!("`{v}` is not a start position number"), vs)
                    .with_hint("write Chess960 numbers (1–960, standard 518; +2880 without castling rights) or 0")
            })?;
            if n == 0 {
                let shuffle = self.add(Filter::LegacyFact(LegacyFact::ShuffleStart { chess960: false }), vs);
                alternatives.push(self.add(Filter::Logic(LogicFilter::Not(shuffle)), vs));
            } else {
                let number = self.add(Filter::LegacyFact(LegacyFact::Chess960Number), vs);
                alternatives.push(self.compare(number, Range::Between(n, n), vs));
            }
        }
        Ok(self.any_of(alternatives, span))
    }

    /// `:goodgame`: the manual's own definition, written out in CQL-S and lowered.
    pub(super) fn good_game(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        const DEFINITION: &str = "(match :timemode normal,corr :not (match :eventtype simul) :plycount 16 unlimited \
            :or ((match :not (match :result 1/2)) (match :plycount 40 unlimited)) \
            :or ((match :title IM,GM,WIM,WGM,CIM,CGM) (match :rating ELO >=2350) (match :rating DWZ >=2350) \
            (match :rating ACF >=2350) (match :rating ECF >=220) (match :rating ICCF >=2350) (match :rating USCF >=2375)))";
        let top = crate::lang::legacy::syntax::read(DEFINITION).map_err(|d| err(d.message, span))?;
        let item = top.first().ok_or_else(|| err("internal: empty `:goodgame` definition", span))?;
        self.sub_match(item)
    }

    /// `:hasmarker [list]`: the game's `Markers` tag names one of the markers; the two
    /// automatic markers also hold when the main line has such a move (`:isillegal` /
    /// `:isinvalid` somewhere), as Scidb sets them by itself.
    pub(super) fn has_marker_keyword(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let bits = self.marker_list(kw, c, &[marker::USER, marker::AUTOMATIC])?;
        let mut alternatives = vec![self.add(Filter::LegacyFact(LegacyFact::Markers(bits)), span)];
        for (bit, fact) in
            [(marker::ILLEGAL_MOVE, LegacyFact::BreaksSetupRules), (marker::INVALID_MOVE, LegacyFact::KingLeftInCheck)]
        {
            if bits & bit != 0 {
                alternatives.push(self.main_line_move_into(fact, span));
            }
        }
        Ok(match alternatives.len() {
            1 => alternatives[0],
            _ => self.add(Filter::Logic(LogicFilter::Or(alternatives)), span),
        })
    }

    /// `:hasspecialmarker [list]`: `deleted`, `changed`, `added` in the `Markers` tag.
    pub(super) fn has_special_marker(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let bits = self.marker_list(kw, c, &[marker::SPECIAL])?;
        Ok(self.add(Filter::LegacyFact(LegacyFact::Markers(bits)), span))
    }

    /// The optional comma list of markers after `:hasmarker` / `:hasspecialmarker`
    /// (names such as `novelty,bestgame` or Scid's symbols such as `N` or `!`); without
    /// a list every marker of the tables counts.
    fn marker_list(
        &mut self,
        kw: &str,
        c: &mut Cursor,
        tables: &[&[(u32, &str, Option<char>)]],
    ) -> Result<u32, Diagnostic> {
        let all: Vec<(u32, &str, Option<char>)> = tables.iter().flat_map(|t| t.iter().copied()).collect();
        let takes_list = match c.peek() {
            Some(Item::Atom { text, quoted, .. }) => *quoted || !(text.starts_with(':') || text.starts_with("!:")),
            _ => false,
        };
        if !takes_list {
            return Ok(all.iter().fold(0, |acc, (b, _, _)| acc | b));
        }
        let (vals, vs) = self.comma_list(kw, c, "marker names such as `novelty,bestgame`")?;
        let mut bits = 0;
        for v in vals {
            bits |= marker::lookup(v, &all).ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(|(_, n, _)| *n).collect();
                err(format!("`{v}` is not a marker `{kw}` knows"), vs)
                    .with_hint(format!("markers: {}", names.join(", ")))
            })?;
        }
        Ok(bits)
    }

    /// Some position of the main line after the start holds the fact (a move led into it).
    fn main_line_move_into(&mut self, fact: LegacyFact, span: Span) -> FilterId {
        let f = self.add(Filter::LegacyFact(fact), span);
        let initial_test = self.add(Filter::PositionState(PositionStateFilter::Initial), span);
        let not_initial = self.add(Filter::Logic(LogicFilter::Not(initial_test)), span);
        let here = self.add(Filter::Logic(LogicFilter::And(vec![not_initial, f])), span);
        let initial = self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Initial)), span);
        let find = self.add(
            Filter::GameTree(GameTreeFilter::Find {
                direction: FindDirection::Forward,
                all: false,
                range: None,
                quiet: true,
                body: here,
            }),
            span,
        );
        self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: initial, body: find }), span)
    }

    /// `:error [kinds]`: the game has one of these reading problems in its main line:
    /// `illegal` (a move into a position that breaks the rules of chess), `invalid` (a
    /// move that leaves the mover's king in check), or `none` (neither). Without a
    /// list: `illegal` or `invalid`.
    pub(super) fn game_error(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let takes_list =
            matches!(c.peek(), Some(Item::Atom { text, .. }) if !text.starts_with(':') && !text.starts_with("!:"));
        let (words, vs): (Vec<String>, Span) = if takes_list {
            let (vals, vs) = self.comma_list(kw, c, "error kinds such as `illegal,invalid` or `none`")?;
            (vals.iter().map(|v| marker::fold(v)).collect(), vs)
        } else {
            (vec!["illegal".into(), "invalid".into()], span)
        };
        let mut alternatives = Vec::new();
        for w in &words {
            let f = match w.as_str() {
                "illegal" | "illegalmove" => self.main_line_move_into(LegacyFact::BreaksSetupRules, span),
                "invalid" | "invalidmove" => self.main_line_move_into(LegacyFact::KingLeftInCheck, span),
                "none" => {
                    let any = self.main_line_move_into(LegacyFact::BreaksSetupRules, span);
                    self.add(Filter::Logic(LogicFilter::Not(any)), span)
                }
                _ => {
                    return Err(err(format!("`{w}` is not an error kind of `{kw}`"), vs)
                        .with_hint("error kinds: illegal, invalid, none"))
                }
            };
            alternatives.push(f);
        }
        Ok(match alternatives.len() {
            1 => alternatives[0],
            _ => self.add(Filter::Logic(LogicFilter::Or(alternatives)), span),
        })
    }

    /// `f` holds at some position of the game (variations included).
    fn whole_game(&mut self, f: FilterId, span: Span) -> FilterId {
        self.game_variations = true;
        let initial = self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Initial)), span);
        let find = self.add(
            Filter::GameTree(GameTreeFilter::Find {
                direction: FindDirection::Forward,
                all: false,
                range: None,
                quiet: true,
                body: f,
            }),
            span,
        );
        self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: initial, body: find }), span)
    }
}
