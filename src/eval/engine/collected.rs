//! The output a game's evaluation collects (comments, sort values, tags, messages, removed
//! comments), and the marks that roll back what a filter that did not match wrote.
//!
//! Part of the filter interpreter ([`super`]). Must never: keep the output of a filter
//! that did not match (every compound filter marks before and rolls back after).

use super::*;

/// Comments written at positions: the position and the text.
pub type PositionComments = Vec<(NodeId, String)>;

/// Output collected while evaluating, with marks to roll back what failed filters wrote.
#[derive(Debug, Default)]
pub struct Out {
    /// `comment` texts per node.
    pub comments: Vec<(NodeId, String)>,
    /// `sort` entries: doc, ascending, value.
    pub sorts: Vec<(String, bool, bool, crate::eval::SortValue)>,
    /// `settag` pairs.
    pub tags: Vec<(String, String)>,
    /// `message` lines.
    pub messages: Vec<String>,
    /// Nodes whose original comments `removecomment` deletes.
    pub removed: Vec<NodeId>,
    /// How many bytes the dictionaries kept from game to game (not `local`) grew by in
    /// this game (less when entries went): the state the next game's memory budget
    /// starts from. Not undone by [`Out::rollback`]: a dictionary's entries stay.
    pub kept_bytes: i64,
}

/// Lengths of the output lists at some moment.
#[derive(Clone, Copy, Debug)]
pub struct Mark([usize; 5]);

impl Out {
    /// Remember the current lengths.
    pub fn mark(&self) -> Mark {
        Mark([self.comments.len(), self.sorts.len(), self.tags.len(), self.messages.len(), self.removed.len()])
    }
    /// A copy of everything written since `mark`.
    pub fn since(&self, mark: Mark) -> Out {
        Out {
            comments: self.comments.get(mark.0[0]..).unwrap_or_default().to_vec(),
            sorts: self.sorts.get(mark.0[1]..).unwrap_or_default().to_vec(),
            tags: self.tags.get(mark.0[2]..).unwrap_or_default().to_vec(),
            messages: self.messages.get(mark.0[3]..).unwrap_or_default().to_vec(),
            removed: self.removed.get(mark.0[4]..).unwrap_or_default().to_vec(),
            kept_bytes: 0,
        }
    }
    /// Add the output held in `other` after this one's.
    pub fn append(&mut self, other: Out) {
        self.comments.extend(other.comments);
        self.sorts.extend(other.sorts);
        self.tags.extend(other.tags);
        self.messages.extend(other.messages);
        self.removed.extend(other.removed);
        self.kept_bytes += other.kept_bytes;
    }
    /// Drop everything written since `mark`.
    /// Each list is looked at first: mostly nothing was written.
    #[inline]
    pub fn rollback(&mut self, mark: Mark) {
        if self.comments.len() > mark.0[0] {
            self.comments.truncate(mark.0[0]);
        }
        if self.sorts.len() > mark.0[1] {
            self.sorts.truncate(mark.0[1]);
        }
        if self.tags.len() > mark.0[2] {
            self.tags.truncate(mark.0[2]);
        }
        if self.messages.len() > mark.0[3] {
            self.messages.truncate(mark.0[3]);
        }
        if self.removed.len() > mark.0[4] {
            self.removed.truncate(mark.0[4]);
        }
    }
}
