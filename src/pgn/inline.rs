//! The two small parts of a [`Node`](super::Node) that would otherwise need a heap buffer
//! for every move: its list of continuations and its move text. Both keep the usual case
//! (one continuation; a move of a few letters) inside the node, so building a position
//! tree allocates nothing per move.

use super::NodeId;

/// The continuations of a position: the first is the main one, later ones are variations
/// (alternatives to it). Reads as a slice of node ids in ascending order (the order they
/// were played in). No continuation or one (the main line without variations) is held
/// inline; a position where a variation branches off holds them all in a vector.
#[derive(Clone, Debug)]
pub struct Children {
    /// The one continuation, when `inline` is 1 and `spilled` is empty.
    first: NodeId,
    /// How many continuations are held in `first` (0 or 1).
    inline: u8,
    /// All continuations once there are two or more.
    spilled: Vec<NodeId>,
}

impl Default for Children {
    fn default() -> Self {
        Children { first: NodeId::ROOT, inline: 0, spilled: Vec::new() }
    }
}

impl Children {
    /// Add a continuation after the ones there are (a variation if there is one already).
    pub fn push(&mut self, id: NodeId) {
        self.push_reusing(id, &mut Vec::new());
    }

    /// [`Children::push`], taking the vector for a branch point from `spare` (emptied
    /// vectors of earlier games) when one is needed.
    #[inline]
    pub(crate) fn push_reusing(&mut self, id: NodeId, spare: &mut Vec<Vec<NodeId>>) {
        if !self.spilled.is_empty() {
            self.spilled.push(id);
        } else if self.inline == 0 {
            self.first = id;
            self.inline = 1;
        } else {
            let mut all = spare.pop().unwrap_or_default();
            all.push(self.first);
            all.push(id);
            self.spilled = all;
            self.inline = 0;
        }
    }

    /// Empty the list, giving back its vector (if it had one) for reuse.
    pub(crate) fn take_spilled(&mut self) -> Option<Vec<NodeId>> {
        self.inline = 0;
        (self.spilled.capacity() > 0).then(|| {
            let mut v = std::mem::take(&mut self.spilled);
            v.clear();
            v
        })
    }
}

impl std::ops::Deref for Children {
    type Target = [NodeId];
    fn deref(&self) -> &[NodeId] {
        if self.spilled.is_empty() {
            &std::slice::from_ref(&self.first)[..usize::from(self.inline)]
        } else {
            &self.spilled
        }
    }
}

impl PartialEq for Children {
    fn eq(&self, other: &Children) -> bool {
        **self == **other
    }
}

impl Eq for Children {}

/// Longest move text held inside the node; longer (odd, lenient) spellings are boxed.
const SHORT: usize = 22;

/// A move as written in the PGN (SAN with its `+`/`#`, or the lenient spelling that was
/// read, such as `0-0` or `e2-e4`), empty at the start position. Derefs to the text.
#[derive(Clone, PartialEq, Eq)]
pub enum MoveText {
    /// Up to 22 ASCII bytes, held inline: every ordinary move.
    Short(u8, [u8; SHORT]),
    /// Anything longer, or not ASCII.
    Long(Box<str>),
}

impl Default for MoveText {
    fn default() -> Self {
        MoveText::Short(0, [0; SHORT])
    }
}

impl MoveText {
    /// The text.
    pub fn as_str(&self) -> &str {
        self
    }

    /// The text of a move token, each byte read as one character (Latin-1; a move that
    /// was read is ASCII).
    pub fn from_bytes(bytes: &[u8]) -> MoveText {
        if bytes.len() <= SHORT && bytes.is_ascii() {
            let mut short = [0; SHORT];
            short[..bytes.len()].copy_from_slice(bytes);
            MoveText::Short(bytes.len() as u8, short)
        } else {
            MoveText::Long(bytes.iter().map(|&b| b as char).collect::<String>().into_boxed_str())
        }
    }
}

impl PartialEq<&str> for MoveText {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

impl From<&str> for MoveText {
    fn from(text: &str) -> MoveText {
        if text.len() <= SHORT && text.is_ascii() {
            MoveText::from_bytes(text.as_bytes())
        } else {
            MoveText::Long(text.into())
        }
    }
}

impl std::ops::Deref for MoveText {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            // Only ASCII is stored short, so this never fails.
            MoveText::Short(len, bytes) => std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default(),
            MoveText::Long(text) => text,
        }
    }
}

impl std::fmt::Display for MoveText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl std::fmt::Debug for MoveText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_read_as_the_ids_pushed_in_order() {
        let mut c = Children::default();
        assert!(c.is_empty());
        c.push(NodeId(1));
        assert_eq!(&c[..], &[NodeId(1)]);
        c.push(NodeId(5));
        c.push(NodeId(9));
        assert_eq!(&c[..], &[NodeId(1), NodeId(5), NodeId(9)]);
        let spilled = c.take_spilled().expect("a branch point has a vector");
        assert!(spilled.is_empty() && spilled.capacity() >= 3);
        assert!(c.is_empty());
        let mut spare = vec![spilled];
        c.push_reusing(NodeId(2), &mut spare);
        c.push_reusing(NodeId(3), &mut spare);
        assert!(spare.is_empty());
        assert_eq!(&c[..], &[NodeId(2), NodeId(3)]);
    }

    #[test]
    fn move_text_keeps_short_and_long_spellings() {
        for text in ["", "e4", "Qh4xe1+", "exd8=Q#", "e2xxxxxxxxxxxxxxxxxxxxxxxxe4", "Ré1"] {
            assert_eq!(&*MoveText::from(text), text);
        }
        assert_eq!(&*MoveText::from_bytes(b"Nf3"), "Nf3");
        assert_eq!(&*MoveText::from_bytes(b"N\xe9"), "N\u{e9}");
        assert_eq!(format!("{}", MoveText::from("O-O")), "O-O");
    }
}
