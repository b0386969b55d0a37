//! The `cql(...)` header: the options that open a script (`input`, `output`,
//! `matchcount`, `variations`, `sort matchcount`, …), read into a
//! [`HeaderSyntax`] (what each option word took after it) and lowered into
//! [`Ir::settings`] by [`crate::lang::cql6::lower::header`].
//! Part of the CQL 6 parser ([`super`]).

use super::*;
use crate::lang::cql6::syntax::{HeaderItem, HeaderSyntax, HeaderValue};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &["cql", "input", "output", "matchcount", "matchstring", "silent", "variations"];

impl<'s> Parser<'s> {
    /// Read the header after `cql(`, up to and with its `)`, into a [`HeaderSyntax`].
    pub(super) fn read_header(&mut self) -> HeaderSyntax {
        let mut header = HeaderSyntax::default();
        loop {
            let at = self.pos as u32;
            let t = self.peek().clone();
            match &t.tok {
                Tok::Sym(Sym::RParen) => {
                    self.bump();
                    return header;
                }
                Tok::Eof => {
                    header.unterminated_at = Some(at);
                    return header;
                }
                Tok::Word(w) => {
                    self.bump();
                    let value = match w.as_str() {
                        "input" | "output" => HeaderValue::FileName(self.header_file_name()),
                        "matchcount" | "gamenumber" => {
                            let numbers = self.header_number().into_iter().chain(self.header_number()).collect();
                            HeaderValue::Numbers(numbers)
                        }
                        "matchstring" => HeaderValue::Text(match &self.peek().tok {
                            Tok::Str(s) => {
                                let s = s.clone();
                                self.bump();
                                Some(s)
                            }
                            _ => None,
                        }),
                        "result" => HeaderValue::Result(match self.peek().tok {
                            Tok::ResultLit(r) => {
                                self.bump();
                                Some(r)
                            }
                            _ => None,
                        }),
                        _ => HeaderValue::Nothing,
                    };
                    header.items.push(HeaderItem::Option { token: at, word: w.clone(), value });
                }
                _ => {
                    self.bump();
                    header.items.push(HeaderItem::Stray { token: at });
                }
            }
        }
    }

    /// A file name: the raw text up to whitespace or `)`, without its quotes.
    fn header_file_name(&mut self) -> String {
        let start = self.peek().span.start as usize;
        let rest = &self.src[start.min(self.src.len())..];
        let len = rest.find(|c: char| c.is_whitespace() || c == ')').unwrap_or(rest.len());
        let end = start + len;
        while !self.at_eof() && (self.peek().span.start as usize) < end {
            self.bump();
        }
        self.src[start..end].trim_matches('"').to_string()
    }

    /// A number, if one stands here (a negative one counts as 0).
    fn header_number(&mut self) -> Option<u64> {
        if let Tok::Number(n) = self.peek().tok {
            self.bump();
            Some(n.max(0) as u64)
        } else {
            None
        }
    }
}
