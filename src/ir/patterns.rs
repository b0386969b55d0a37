//! Regular expressions of a query (`~~`, YACPDB `Stip`, …), compiled the same way by every
//! front-end and the evaluator.

use rustc_hash::FxHashMap as HashMap;

/// The compiled size a query's regular expression may reach (`~~`, YACPDB `Stip`, …): ample
/// for any pattern a user writes, and a quick refusal for a runaway repetition such as
/// `a{77666}{77666}` instead of a long compile.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Compile a regular expression of a query: every front-end and the evaluator use this, so
/// that a pattern is accepted or refused the same way everywhere. The last few patterns are
/// remembered per thread with their outcome: a front-end compiles a pattern to check it and
/// the compiled query compiles it again, and building a regex (its literal prefilters, its
/// Unicode classes) costs far more than the check of most queries. At most
/// [`REMEMBERED_PATTERNS`] are kept, each of at most [`PATTERN_SIZE_LIMIT`].
pub fn compile_pattern(pattern: &str) -> Result<regex::Regex, regex::Error> {
    type Compiled = HashMap<String, Result<regex::Regex, regex::Error>>;
    thread_local! {
        static COMPILED: std::cell::RefCell<Compiled> = std::cell::RefCell::new(Compiled::default());
    }
    COMPILED.with(|compiled| {
        if let Some(known) = compiled.borrow().get(pattern) {
            return known.clone();
        }
        let outcome = regex::RegexBuilder::new(pattern).size_limit(PATTERN_SIZE_LIMIT).build();
        let mut compiled = compiled.borrow_mut();
        if compiled.len() >= REMEMBERED_PATTERNS {
            compiled.clear();
        }
        compiled.insert(pattern.to_string(), outcome.clone());
        outcome
    })
}

/// How many compiled patterns [`compile_pattern`] keeps per thread.
pub const REMEMBERED_PATTERNS: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runaway_pattern_is_refused_and_an_ordinary_one_compiles() {
        // A fuzz input whose `Stip('…{77666}…')` took seconds to compile before the limit.
        assert!(compile_pattern("a{77666}{77666}").is_err());
        assert!(compile_pattern("^#[2-5]$").is_ok());
    }

    /// A remembered pattern gives what compiling it gives, refusals included, also after the
    /// memory has been emptied to make room.
    #[test]
    fn remembered_patterns_give_the_compiled_outcome() {
        for round in 0..2 {
            for i in 0..REMEMBERED_PATTERNS + 3 {
                let pattern = format!("^a{i}b+$");
                let re = compile_pattern(&pattern).expect("a valid pattern");
                assert!(re.is_match(&format!("a{i}bb")), "round {round}, {pattern}");
                assert!(!re.is_match(&format!("a{i}")), "round {round}, {pattern}");
            }
            assert!(compile_pattern("(unclosed").is_err());
            assert!(compile_pattern("a{77666}{77666}").is_err(), "over the size limit");
        }
    }
}
