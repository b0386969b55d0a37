//! The compile-time check for loops that can never end (run by `Query::from_ir`).
//!
//! Takes in: the query's IR after transforms are expanded.
//! Gives out: a diagnostic for a `loop` or `while` that can be seen never to end.
//! Must never: change the query.
//!
//! A loop body and condition that write nothing (no variable, dictionary or regex
//! group, no nested loop, `line` or path search) compute the same result every time
//! round, so once the loop has started it can never stop: `loop { true }`,
//! `while (check) { comment("x") }`. Loops whose progress the evaluator cannot see in
//! advance (`while (x < 10) { x = x }`) are caught at run time by the per-game step
//! budget and reported as abandoned games.

use crate::diag::Diagnostic;
use crate::ir::props::changes_state_for_a_loop;
use crate::ir::visit::children;
use crate::ir::VariableFilter;
use crate::ir::{Filter, FilterId, Ir};

/// Does the sub-tree at `id` contain a write? Iterative (queries may nest deeply).
fn subtree_writes(ir: &Ir, id: FilterId) -> bool {
    let mut stack = vec![id];
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        if changes_state_for_a_loop(ir, f) {
            return true;
        }
        stack.extend(children(ir.get(f)));
    }
    false
}

/// The first `loop`/`while` reachable from the root that writes nothing, as a
/// diagnostic pointing at it.
pub fn runaway_loop(ir: &Ir) -> Option<Diagnostic> {
    let root = ir.root?;
    let mut stack = vec![root];
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        let filter = ir.get(f);
        if let Filter::Variables(VariableFilter::While { cond, body }) = filter {
            let still = !subtree_writes(ir, *body) && cond.is_none_or(|c| !subtree_writes(ir, c));
            if still {
                let (what, hint) = match cond {
                    None => ("`loop`", "the body must change a variable so that it can fail"),
                    Some(_) => ("`while`", "the body must change something the condition reads"),
                };
                return Some(
                    Diagnostic::new(
                        format!("this {what} never ends once started: nothing in it changes"),
                        ir.first_span(f),
                    )
                    .with_hint(hint),
                );
            }
        }
        stack.extend(children(filter));
    }
    None
}

#[cfg(test)]
mod tests {
    /// The message of the compile error a query gets, if any (through the one pipeline).
    fn check(text: &str) -> Option<String> {
        let options = &mut crate::CompileOptions::default();
        crate::eval::Query::compile(text, options).err().map(|e| e.to_string())
    }

    #[test]
    fn loops_that_change_nothing_are_refused() {
        assert!(check("cql() loop { true }").unwrap().contains("`loop` never ends"));
        assert!(check("cql() while (check) { comment(\"x\") }").unwrap().contains("`while`"));
        assert_eq!(check("cql() initial x=0 while (x<10) {x=x+1}"), None);
        assert_eq!(check("cql() initial x=0 while (x<10) {x=x}"), None);
        assert_eq!(check("cql() check"), None);
    }
}
