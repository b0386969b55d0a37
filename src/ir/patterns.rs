//! Regular expressions of a query (`~~`, YACPDB `Stip`, …), compiled the same way by every
//! front-end and the evaluator.

/// The compiled size a query's regular expression may reach (`~~`, YACPDB `Stip`, …): ample
/// for any pattern a user writes, and a quick refusal for a runaway repetition such as
/// `a{77666}{77666}` instead of a long compile.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Compile a regular expression of a query: every front-end and the evaluator use this, so
/// that a pattern is accepted or refused the same way everywhere. Nothing is remembered
/// between calls: a compiled query keeps its own compiled patterns
/// ([`crate::eval::Query::new`]).
pub fn compile_pattern(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern).size_limit(PATTERN_SIZE_LIMIT).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runaway_pattern_is_refused_and_an_ordinary_one_compiles() {
        // A fuzz input whose `Stip('…{77666}…')` took seconds to compile before the limit.
        assert!(compile_pattern("a{77666}{77666}").is_err());
        assert!(compile_pattern("^#[2-5]$").is_ok());
    }

    /// Compiling a pattern again gives the same outcome, refusals included.
    #[test]
    fn patterns_compile_the_same_every_time() {
        for round in 0..2 {
            for i in 0..19 {
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
