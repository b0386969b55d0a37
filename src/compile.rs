//! The one compile pipeline: from query text (or an IR built in code) to a [`Query`]
//! ready to run on games.
//!
//! Takes in: the text of a query in one of the three languages, or an [`Ir`].
//! Gives out: a [`Query`] — the front-end's IR with its transforms expanded
//! (`flipcolor`, `shift`, … replaced by their images), normalized, checked for loops that
//! can never end, and compiled (regular expressions, header-only parts). The query knows
//! its own sort order and whether its games must be read one after another.
//! Must never: read files, print, or depend on the command line.
//!
//! Every caller — the command line, benches, tests, fuzz targets and embedders — compiles
//! through [`Query::compile`] or [`Query::from_ir`]; no other code runs these steps in
//! sequence.

use crate::diag::Diagnostic;
use crate::eval::{FilePolicy, Query};
use crate::ir::Ir;
use crate::lang::Syntax;

/// How to compile a query: its language, and what a caller adds to it before the
/// transforms are expanded (the command line's `-flipcolor`, `-player`, … options).
pub struct CompileOptions<'a> {
    /// The query language of the text.
    pub syntax: Syntax,
    /// Called with the front-end's IR before anything else runs: may add filters or
    /// change settings; its error is reported as [`CompileError::Amend`].
    amend: Option<Box<dyn FnOnce(&mut Ir) -> Result<(), String> + 'a>>,
    /// Which files the query's `readfile` and `writefile` may reach (default: the
    /// current directory only).
    files: FilePolicy,
}

impl<'a> CompileOptions<'a> {
    /// Compile text in this language, with nothing added.
    pub fn new(syntax: Syntax) -> CompileOptions<'a> {
        CompileOptions { syntax, amend: None, files: FilePolicy::default() }
    }

    /// Change the IR the front-end produced before it is expanded and normalized (how
    /// the command line turns options such as `-flipcolor` into filters).
    pub fn amend(mut self, edit: impl FnOnce(&mut Ir) -> Result<(), String> + 'a) -> CompileOptions<'a> {
        self.amend = Some(Box::new(edit));
        self
    }

    /// The files the query may read and write (see [`FilePolicy`]); a quoted file name
    /// the policy refuses is a compile error at that name.
    pub fn files(mut self, policy: FilePolicy) -> CompileOptions<'a> {
        self.files = policy;
        self
    }
}

impl Default for CompileOptions<'_> {
    /// CQL 6 text, nothing added.
    fn default() -> Self {
        CompileOptions::new(Syntax::Cql6)
    }
}

/// Why a query did not compile.
#[derive(Debug)]
pub enum CompileError {
    /// The text is not a valid query, or a check on the finished query failed (e.g. a
    /// `loop` that can never end): diagnostics pointing into the text.
    Query(crate::diag::Error),
    /// What [`CompileOptions::amend`] added was refused.
    Amend(String),
    /// The query is well formed but cannot run (e.g. a regular expression that does
    /// not compile).
    Eval(crate::eval::Error),
}

impl CompileError {
    /// The error as the user sees it: for diagnostics, `file:line:column`, the source
    /// line and a caret under the offending text (see [`crate::diag::Error::render`]).
    pub fn render(&self, file: &str, source: &str) -> String {
        match self {
            CompileError::Query(e) => e.render(file, source),
            CompileError::Amend(message) => message.clone(),
            CompileError::Eval(e) => format!("{file}: error: {e}\n"),
        }
    }
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Query(e) => write!(f, "{e}"),
            CompileError::Amend(message) => f.write_str(message),
            CompileError::Eval(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CompileError {}

impl From<Vec<Diagnostic>> for CompileError {
    fn from(diagnostics: Vec<Diagnostic>) -> Self {
        CompileError::Query(crate::diag::Error { diagnostics })
    }
}

impl Query {
    /// Compile the text of a query (CQL 6, legacy or YACPDB, as the options say): the
    /// one compile pipeline of the library.
    ///
    /// ```
    /// use cqlrs::{CompileOptions, Query};
    /// let query = Query::compile("cql() mate", &mut CompileOptions::default()).unwrap();
    /// assert!(query.needs_positions());
    /// ```
    pub fn compile(text: &str, options: &mut CompileOptions<'_>) -> Result<Query, CompileError> {
        let mut ir = crate::lang::parse(text, options.syntax).map_err(CompileError::Query)?;
        if let Some(edit) = options.amend.take() {
            edit(&mut ir).map_err(CompileError::Amend)?;
        }
        let mut query = Query::from_ir(ir)?;
        query.set_file_policy(options.files.clone())?;
        Ok(query)
    }

    /// Compile an IR built in code (or by a front-end): expand its transforms, normalize
    /// it, refuse loops that can never end, and build the query.
    pub fn from_ir(mut ir: Ir) -> Result<Query, CompileError> {
        crate::ir::transform::expand(&mut ir)?;
        crate::ir::normalize::normalize(&mut ir);
        if let Some(diagnostic) = crate::ir::loops::runaway_loop(&ir) {
            return Err(vec![diagnostic].into());
        }
        Query::new(ir).map_err(CompileError::Eval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_compiles_through_the_one_pipeline() {
        for (text, syntax) in [
            ("cql() flipcolor mate", Syntax::Cql6),
            ("(match (position :check))", Syntax::Legacy),
            ("Twins > 1", Syntax::Yacpdb),
        ] {
            let query = Query::compile(text, &mut CompileOptions::new(syntax));
            assert!(query.is_ok(), "{text}: {:?}", query.err());
        }
    }

    #[test]
    fn transforms_are_expanded_and_loops_checked() {
        let query = Query::compile("cql() flipcolor check", &mut CompileOptions::default()).unwrap();
        let ir = query.ir();
        let transforms = (0..ir.len())
            .filter(|&i| matches!(ir.get(crate::ir::FilterId(i as u32)), crate::ir::Filter::Transform { .. }))
            .count();
        // The arena may keep the unexpanded original, but the root no longer reaches it.
        assert!(transforms <= 1);
        let err = Query::compile("cql() loop { true }", &mut CompileOptions::default()).unwrap_err();
        let text = err.render("q.cql", "cql() loop { true }");
        assert!(text.contains("q.cql:1:7:") && text.contains("never ends"), "{text}");
    }

    #[test]
    fn an_amendment_runs_before_expansion_and_its_error_is_reported() {
        let mut options = CompileOptions::default().amend(|ir| {
            ir.settings.silent = true;
            Ok(())
        });
        let query = Query::compile("cql() check", &mut options).unwrap();
        assert!(query.ir().settings.silent);
        let mut refusing = CompileOptions::default().amend(|_| Err("cqlrs: bad option".to_string()));
        let err = Query::compile("cql() check", &mut refusing).unwrap_err();
        assert!(matches!(err, CompileError::Amend(ref m) if m == "cqlrs: bad option"));
    }

    #[test]
    fn a_bad_regular_expression_is_reported_at_its_text() {
        let text = r#"cql() event ~~ "(""#;
        let err = Query::compile(text, &mut CompileOptions::default()).unwrap_err();
        let shown = err.render("q.cql", text);
        assert!(shown.starts_with("q.cql:1:16: error: invalid regular expression"), "{shown}");
    }
}
