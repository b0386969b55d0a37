//! The `cql(...)` header: the options that open a script (`input`, `output`,
//! `matchcount`, `variations`, `sort matchcount`, …), read into [`Ir::settings`].
//! Part of the CQL 6 parser ([`super`]).

use super::*;

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "cql",
    "input",
    "output",
    "matchcount",
    "matchstring",
    "silent",
    "variations",
];

impl<'s> Parser<'s> {
    pub(super) fn header_file_name(&mut self) -> String {
        // A file name is the raw text up to whitespace or `)`.
        let start = self.peek().span.start as usize;
        let rest = &self.src[start.min(self.src.len())..];
        let len = rest.find(|c: char| c.is_whitespace() || c == ')').unwrap_or(rest.len());
        let end = start + len;
        while !self.at_eof() && (self.peek().span.start as usize) < end {
            self.bump();
        }
        self.src[start..end].trim_matches('"').to_string()
    }

    pub(super) fn header_number(&mut self) -> Option<u64> {
        if let Tok::Number(n) = self.peek().tok {
            self.bump();
            Some(n.max(0) as u64)
        } else {
            None
        }
    }

    pub(super) fn parse_header(&mut self) {
        loop {
            let t = self.peek().clone();
            match &t.tok {
                Tok::Sym(Sym::RParen) => {
                    self.bump();
                    return;
                }
                Tok::Eof => {
                    self.error("unterminated `cql(` header", t.span);
                    return;
                }
                Tok::Word(w) => {
                    self.bump();
                    match w.as_str() {
                        "input" => {
                            let f = self.header_file_name();
                            self.ir.settings.input.push(f);
                        }
                        "output" => {
                            let f = self.header_file_name();
                            self.ir.settings.output = Some(f);
                        }
                        "variations" => self.ir.settings.variations = true,
                        "mainline" => self.ir.settings.variations = false,
                        "silent" => self.ir.settings.silent = true,
                        "quiet" => self.ir.settings.quiet = true,
                        "matchcount" | "gamenumber" => {
                            let Some(lo) = self.header_number() else {
                                self.error(format!("`{w}` needs a number"), t.span);
                                continue;
                            };
                            // One number alone is both ends, as in every CQL 6.2 range (`cql(matchcount 3)`:
                            // exactly three matching positions).
                            let hi = self.header_number().unwrap_or(lo);
                            if w == "matchcount" {
                                self.ir.settings.matchcount = (lo, hi);
                            } else {
                                self.ir.settings.gamenumber = Some((lo, hi));
                            }
                        }
                        "matchstring" => {
                            if let Tok::Str(s) = &self.peek().tok {
                                self.ir.settings.matchstring = Some(s.clone());
                                self.bump();
                            } else {
                                self.error("`matchstring` needs a string", t.span);
                            }
                        }
                        "result" => {
                            if let Tok::ResultLit(r) = self.peek().tok {
                                self.ir.settings.result = Some(r);
                                self.bump();
                            } else {
                                self.error("`result` needs 1-0, 0-1 or 1/2-1/2", t.span);
                            }
                        }
                        // Accepted and ignored: options of the official program that change only its output.
                        "sort" if matches!(&self.peek().tok, Tok::Word(m) if m == "matchcount") => {
                            // `sort matchcount [lo [hi]]`: order by the number of matching
                            // positions; the range that may follow bounds it as usual.
                            self.ir.settings.sort_matchcount = true;
                        }
                        "noremovecomment" => self.ir.settings.keep_removed_comments = true,
                        "sort" | "nosort" | "smartcomments" | "nosmartcomments" | "showmatches" => {}
                        other => {
                            let words = [
                                "input",
                                "output",
                                "variations",
                                "mainline",
                                "silent",
                                "quiet",
                                "matchcount",
                                "gamenumber",
                                "matchstring",
                                "result",
                            ];
                            let hint = nearest(other, &words).map(|n| format!("did you mean `{n}`?"));
                            self.error_hint(format!("unknown `cql` header option `{other}`"), t.span, hint);
                        }
                    }
                }
                _ => {
                    let d = self.describe_here();
                    self.error(format!("unexpected {d} in the `cql` header"), t.span);
                    self.bump();
                }
            }
        }
    }
}
