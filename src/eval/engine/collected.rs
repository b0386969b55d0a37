//! The output a game's evaluation collects (comments, sort values, tags, messages, removed
//! comments), and the marks that roll back the comments a filter that did not match wrote.
//!
//! Part of the filter interpreter ([`super`]). What rolls back is what CQL 6.2 rolls back:
//! only the comments of the position (`QPos::markComments`/`restoreComments`, called by every
//! compound that fails). A `message` is printed where it is evaluated
//! (`CommentNode::match_position`), a `sort` binds its value where it matches
//! (`SortNode::handle_new_value`), `settag` sets the tag (`TagSetNode::match_position`) and
//! `removecomment` flags the position (`RemoveCommentNode::match_position`), whether or not
//! the filters around them then match. Must never: keep a comment of a filter that did not
//! match, nor drop any other effect because a later filter failed.

use super::*;

/// Comments written at positions: the position and the text.
pub type PositionComments = Vec<(NodeId, String)>;

/// Output collected while evaluating; comments come with marks to roll back what failed
/// filters wrote.
#[derive(Debug, Default)]
pub struct Out {
    /// `comment` texts per node (rolled back when the filter that wrote them fails).
    pub comments: Vec<(NodeId, String)>,
    /// `sort` entries: doc, ascending, value (kept once made).
    pub sorts: Vec<(String, bool, bool, crate::eval::SortValue)>,
    /// `settag` pairs (kept once made).
    pub tags: Vec<(String, String)>,
    /// `message` lines (printed once made).
    pub messages: Vec<String>,
    /// Nodes whose original comments `removecomment` deletes (kept once made).
    pub removed: Vec<NodeId>,
    /// How many bytes the dictionaries kept from game to game (not `local`) grew by in
    /// this game (less when entries went): the state the next game's memory budget
    /// starts from. Not undone by [`Out::rollback`]: a dictionary's entries stay.
    pub kept_bytes: i64,
}

/// The number of comments written at some moment.
#[derive(Clone, Copy, Debug)]
pub struct Mark(usize);

impl Out {
    /// Remember how many comments have been written.
    pub fn mark(&self) -> Mark {
        Mark(self.comments.len())
    }
    /// A copy of the comments written since `mark` (the other effects are never taken back,
    /// so they are not copied either).
    pub fn since(&self, mark: Mark) -> Out {
        Out { comments: self.comments.get(mark.0..).unwrap_or_default().to_vec(), ..Out::default() }
    }
    /// Add the comments held in `other` after this one's.
    pub fn append(&mut self, other: Out) {
        self.comments.extend(other.comments);
    }
    /// Drop the comments written since `mark`.
    #[inline]
    pub fn rollback(&mut self, mark: Mark) {
        if self.comments.len() > mark.0 {
            self.comments.truncate(mark.0);
        }
    }
}
