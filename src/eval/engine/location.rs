//! Where a filter is evaluated: a position of the game tree, a position after a generated
//! move, or no position (the header); and how the interpreter moves between them (parent,
//! children, the game-tree order the scan and `find` walk, ancestors, `positionid`).
//!
//! Part of the filter interpreter ([`super`]). Takes in: a location and the game. Gives
//! out: the position, its piece identities, its neighbours. Must never: allocate per
//! position (the walks are done in place), or answer from a memo entry of another game.

use super::*;
use crate::ir::PositionStateFilter;

/// Where a filter is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// A position of the game tree.
    Node(NodeId),
    /// A temporary position after a generated (legal or pseudo-legal) move: index into
    /// the evaluator's stack of temporary positions.
    Temp(u32),
    /// No position: only the header is known (tag pre-filtering).
    Header,
}

/// A position reached by a generated move, not part of the game.
#[derive(Clone, Debug)]
pub struct Temp {
    /// The position after the move.
    pub pos: Pos,
    /// Piece identities after the move.
    pub ids: PieceIds,
    /// Where the move was made.
    pub parent: Loc,
    /// The move.
    pub played: Move,
}

impl<'a> Ctx<'a> {
    /// The `positionid` of a node: its rank in a walk of the whole game tree that visits a
    /// position, then its main continuation with everything below it, then each variation in
    /// turn. The root is 0 and every main-line position comes before every variation position,
    /// so comparing two positions (`source<target`) compares these ids.
    pub fn position_id(&self, n: NodeId) -> i64 {
        let (ids, _) = self.position_ids.get_or_init(|| self.walk_position_ids());
        ids.get(n.index()).map_or(n.0 as i64, |&i| i as i64)
    }

    /// The `positionid` of every node, indexed by node (see [`Self::position_id`]), and the
    /// node of every id, indexed by id.
    fn walk_position_ids(&self) -> (Vec<u32>, Vec<NodeId>) {
        let mut ids = vec![0u32; self.game.nodes.len()];
        let mut nodes = Vec::with_capacity(self.game.nodes.len());
        if self.game.nodes.is_empty() {
            return (ids, nodes);
        }
        let mut stack = vec![NodeId::ROOT];
        let mut next = 0u32;
        while let Some(c) = stack.pop() {
            if let Some(slot) = ids.get_mut(c.index()) {
                *slot = next;
                nodes.push(c);
                next += 1;
            }
            if let Some(node) = self.game.nodes.get(c.index()) {
                stack.extend(node.children.iter().rev().copied());
            }
        }
        (ids, nodes)
    }

    /// The node whose `positionid` is `id`, if the game has one that the scan visits (a
    /// variation position only when variations are on). Looked up in a table, not searched:
    /// a loop over `position N` asks for every id in turn.
    pub fn position_with_id(&self, id: i64) -> Option<NodeId> {
        let want = usize::try_from(id).ok()?;
        let (_, nodes) = self.position_ids.get_or_init(|| self.walk_position_ids());
        let found = *nodes.get(want)?;
        let node = self.game.nodes.get(found.index())?;
        (self.variations || node.depth == 0).then_some(found)
    }

    // ----- location helpers ------------------------------------------------

    /// The position at a location.
    pub fn pos(&self, at: Loc) -> Option<&Pos> {
        match at {
            Loc::Node(n) => self.game.nodes.get(n.index()).map(|node| &node.pos),
            Loc::Temp(i) => self.temps.get(i as usize).map(|t| &t.pos),
            Loc::Header => None,
        }
    }

    /// Is the side to move in check at a location? (A node knows it from when it was
    /// built.)
    pub fn in_check(&self, at: Loc) -> Option<bool> {
        match at {
            Loc::Node(n) => self.game.nodes.get(n.index()).map(|node| node.check),
            Loc::Temp(i) => self.temps.get(i as usize).map(|t| t.pos.is_check()),
            Loc::Header => None,
        }
    }

    /// Piece identities at a location.
    pub fn ids(&self, at: Loc) -> PieceIds {
        match at {
            Loc::Node(n) => self.game.nodes.get(n.index()).map(|node| node.ids).unwrap_or_default(),
            Loc::Temp(i) => self.temps.get(i as usize).map(|t| t.ids).unwrap_or_default(),
            Loc::Header => PieceIds::default(),
        }
    }

    /// The nearest game node at or above a location.
    pub fn node_of(&self, at: Loc) -> Option<NodeId> {
        let mut cur = at;
        loop {
            match cur {
                Loc::Node(n) => return Some(n),
                Loc::Temp(i) => cur = self.temps.get(i as usize)?.parent,
                Loc::Header => return None,
            }
        }
    }

    /// The location one move back.
    pub(super) fn parent(&self, at: Loc) -> Option<Loc> {
        match at {
            Loc::Node(n) => self.game.nodes.get(n.index())?.parent.map(Loc::Node),
            Loc::Temp(i) => self.temps.get(i as usize).map(|t| t.parent),
            Loc::Header => None,
        }
    }

    /// Continuations searched from a node (only the main one without `variations`).
    pub fn children(&self, n: NodeId) -> &'a [NodeId] {
        let game: &'a Game = self.game;
        match game.nodes.get(n.index()) {
            Some(node) if self.variations => &node.children,
            Some(node) => &node.children[..node.children.len().min(1)],
            None => &[],
        }
    }

    /// Piece identities at a location, without copying them (`None` for the header).
    fn ids_ref(&self, at: Loc) -> Option<&PieceIds> {
        match at {
            Loc::Node(n) => self.game.nodes.get(n.index()).map(|node| &node.ids),
            Loc::Temp(i) => self.temps.get(i as usize).map(|t| &t.ids),
            Loc::Header => None,
        }
    }

    /// The square a piece identity stands on at a location.
    pub(in crate::eval) fn square_of(&self, id: PieceId, at: Loc) -> Option<Square> {
        let Loc::Node(n) = at else { return self.ids_ref(at).and_then(|ids| find_identity(ids, id)) };
        let slot = &self.piece_squares.slots[id as usize];
        let key = self.square_turn << 41 | (u64::from(n.0) + 1) << 8;
        let known = slot.get();
        if known & !0xff == key {
            let code = (known & 0xff) as u32;
            return (code < 64).then(|| Square::new(code));
        }
        // Identities are unique on a board, and a piece seldom moves: where it stood at its
        // last lookup in this game is looked at first.
        let last = (known & 0xff) as usize;
        let seen_this_game = known >> 41 == self.square_turn && last < 64 && id != 0;
        let found = self.ids_ref(at).and_then(|ids| match seen_this_game && ids.0[last] == id {
            true => Some(Square::new(last as u32)),
            false => find_identity(ids, id),
        });
        slot.set(key | found.map_or(64, |sq| sq as u64));
        found
    }

    /// Does the fact `f` (a `mate` or `stalemate` filter) hold at some position of the game,
    /// in the main line or any variation? Worked out once per game (each position looked
    /// at counts as a step); `true` for any other filter.
    pub(in crate::eval) fn somewhere_in_game(&mut self, f: FilterId) -> Result<bool, Error> {
        let fact: &'a Filter = self.ir.get(f);
        let bit = match fact {
            Filter::PositionState(PositionStateFilter::Mate) => 1u8,
            Filter::PositionState(PositionStateFilter::Stalemate) => 2u8,
            _ => return Ok(true),
        };
        let (turn, known, holds) = self.piece_squares.facts.get();
        let (mut known, mut holds) = if turn == self.square_turn { (known, holds) } else { (0, 0) };
        if known & bit == 0 {
            self.count_visits(self.game.nodes.len())?;
            let found = (0..self.game.nodes.len()).any(|i| self.position_fact(fact, Loc::Node(NodeId(i as u32))));
            known |= bit;
            if found {
                holds |= bit;
            }
            self.piece_squares.facts.set((self.square_turn, known, holds));
        }
        Ok(holds & bit != 0)
    }

    /// The key of a forward walk from `start` in the piece tracks of [`SquareMemo`].
    fn walk_key(&self, start: NodeId) -> u64 {
        self.square_turn << 41 | (u64::from(start.0) + 1) << 8 | u64::from(self.variations)
    }

    /// The squares piece `id` stood on at the positions a forward walk from `start` passes
    /// up to ply `last` (beyond it nothing is walked), if a walk of this game remembered
    /// them (see [`Self::remember_walked_squares`]).
    pub(in crate::eval) fn walked_squares(&self, id: PieceId, start: NodeId, last: i64) -> Option<Bitboard> {
        let (key, ply, squares) = self.piece_squares.tracks[id as usize].get();
        (key == self.walk_key(start) && ply == last).then_some(Bitboard(squares))
    }

    /// Remember the squares piece `id` stood on over a whole forward walk from `start` up
    /// to ply `last`: every position below `start` (in the continuations searched) whose
    /// ply is at most `last`.
    pub(in crate::eval) fn remember_walked_squares(&self, id: PieceId, start: NodeId, last: i64, squares: Bitboard) {
        self.piece_squares.tracks[id as usize].set((self.walk_key(start), last, squares.0));
    }

    pub(super) fn ply(&self, at: Loc) -> Option<u32> {
        match at {
            Loc::Node(n) => self.game.nodes.get(n.index()).map(|x| x.ply),
            Loc::Temp(_) => self.parent(at).and_then(|p| self.ply(p)).map(|p| p + 1),
            Loc::Header => None,
        }
    }

    /// The `movenumber` of a position as CQL 6.2 counts it (`QPos::getMoveNumber`): the
    /// game's first move is move 1 whatever the move number of its `[FEN]` set-up, and the
    /// number goes up when White is to move again (after Black's first move when the game
    /// starts with Black to move).
    pub(in crate::eval) fn move_number(&self, at: Loc) -> Option<i64> {
        let ply = self.ply(at)? as i64;
        let white_to_move = self.pos(at)?.turn().is_white();
        let white_first = self.game.nodes.first().is_none_or(|root| root.pos.turn().is_white());
        let counted = if !white_first && white_to_move { ply + 1 } else { ply };
        Some(counted / 2 + 1)
    }

    /// The searched node after `n` in game-tree (pre-)order, the order of
    /// [`Ctx::searched_nodes`]: the main continuation first, then the next variation of the
    /// nearest position above that has one. Children are kept in ascending id order, so a
    /// node's place among its siblings is found by binary search; each move is climbed at
    /// most once in a whole walk.
    pub fn next_searched(&self, n: NodeId) -> Option<NodeId> {
        if let Some(&first) = self.children(n).first() {
            return Some(first);
        }
        // The end of the main line when variations are not searched, or the end of a game
        // without variations (its nodes are exactly the plies up to this one): nothing
        // follows, and the walk back to the start would find no other branch.
        self.next_beside(n, NodeId::ROOT)
    }

    /// The searched node after everything below `n` in game-tree order, staying below
    /// `top` (`n` at or under it): the next variation of the nearest position between
    /// them that has one.
    pub(super) fn next_beside(&self, n: NodeId, top: NodeId) -> Option<NodeId> {
        // When variations are not searched, or the game has none, no position on the way
        // back has another branch to go on with. (A game has none when all its nodes lie on
        // the way to the last one read: as many nodes as that one's ply plus one.)
        let linear = self.game.nodes.last().is_some_and(|last| last.ply as usize + 1 == self.game.nodes.len());
        if !self.variations || linear {
            return None;
        }
        let mut cur = n;
        while cur != top {
            let parent = self.game.nodes.get(cur.index())?.parent?;
            let siblings = self.children(parent);
            if let Ok(i) = siblings.binary_search(&cur) {
                if let Some(&next) = siblings.get(i + 1) {
                    return Some(next);
                }
            }
            cur = parent;
        }
        None
    }

    /// Searched nodes of the game in game-tree (pre-)order.
    pub fn searched_nodes(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        if self.game.nodes.is_empty() {
            return out;
        }
        let mut stack = vec![NodeId::ROOT];
        while let Some(n) = stack.pop() {
            out.push(n);
            for &c in self.children(n).iter().rev() {
                stack.push(c);
            }
        }
        out
    }

    /// Is `x` the position `y` itself or one that led to it? Decided by the plies: an
    /// ancestor is fewer plies from the start, a main-line position has only main-line
    /// ancestors (one per ply), and otherwise `y` is climbed to `x`'s ply only. `echo` asks
    /// this for every pair of positions, so it must not walk to the start each time.
    pub(super) fn is_ancestor_or_self(&self, x: NodeId, y: NodeId) -> bool {
        if x == y {
            return true;
        }
        let (Some(above), Some(below)) = (self.game.nodes.get(x.index()), self.game.nodes.get(y.index())) else {
            return false;
        };
        if above.ply > below.ply {
            return false;
        }
        if below.is_mainline() {
            return above.is_mainline();
        }
        let mut cur = y;
        for _ in above.ply..below.ply {
            match self.game.nodes.get(cur.index()).and_then(|n| n.parent) {
                Some(p) => cur = p,
                None => return false,
            }
        }
        cur == x
    }

    /// Whether `n` lies on the virtual main line (CQL 6.2 `QPos::virtualmainline`): reached from
    /// the start by main continuations and Black's alternatives only, with no null move.
    pub(super) fn on_virtual_mainline(&self, n: NodeId) -> bool {
        // CQL 6.2 (`QPos::virtualmainline`): every move from the start to here is the main
        // continuation or an alternative move of Black; a null move leaves the virtual main line.
        let mut cur = n;
        while let Some(parent) = self.game.nodes.get(cur.index()).and_then(|node| node.parent) {
            if matches!(self.game.node(cur).played, Some(Played::Null)) {
                return false;
            }
            if self.children(parent).first() != Some(&cur) && self.game.node(parent).pos.turn().is_white() {
                return false;
            }
            cur = parent;
        }
        true
    }

    pub(super) fn lca(&self, x: NodeId, y: NodeId) -> Option<NodeId> {
        let mut cur = Some(x);
        while let Some(c) = cur {
            if self.is_ancestor_or_self(c, y) {
                return Some(c);
            }
            cur = self.game.nodes.get(c.index()).and_then(|n| n.parent);
        }
        None
    }
}

/// Per worker: for each piece identity, the last square lookup made at a game node, so that
/// asking again at the same node is one comparison. Game nodes never change, so a hit is
/// exact; temporary positions are not remembered. An entry is the game's turn
/// (`turn << 41`), `(node + 1) << 8` and the square (64 = not on the board); 0 = none. The
/// table is kept between games instead of being cleared for each (2 KB per game, a
/// measurable share of a header-only scan): a new game takes the next turn, which no older
/// entry matches, and the table is cleared only when the turns run out.
///
/// Beside it, per identity, the squares the piece stood on over the positions of the last
/// forward `find` walk that gathered them (see `plan::FindPlan`): the key (the game's turn,
/// the node the walk started at, whether variations were walked), the last ply walked,
/// and the squares.
#[derive(Debug)]
pub struct SquareMemo {
    slots: [std::cell::Cell<u64>; 256],
    tracks: [std::cell::Cell<(u64, i64, u64)>; 256],
    /// For the game of the turn kept here: which of the facts of
    /// [`Ctx::somewhere_in_game`] are known, and which of them hold somewhere.
    facts: std::cell::Cell<(u64, u8, u8)>,
    turn: std::cell::Cell<u64>,
}

impl Default for SquareMemo {
    fn default() -> SquareMemo {
        SquareMemo {
            slots: [const { std::cell::Cell::new(0) }; 256],
            tracks: [const { std::cell::Cell::new((0, 0, 0)) }; 256],
            facts: std::cell::Cell::new((0, 0, 0)),
            turn: std::cell::Cell::new(0),
        }
    }
}

impl SquareMemo {
    /// Turns fit in the 23 bits above a node number (33 bits) and a square (8 bits).
    const TURNS: u64 = 1 << 23;

    /// Start a new game: its turn, which no entry made before matches.
    pub(super) fn next_game(&self) -> u64 {
        let turn = self.turn.get() + 1;
        if turn < Self::TURNS {
            self.turn.set(turn);
            return turn;
        }
        for slot in &self.slots {
            slot.set(0);
        }
        for track in &self.tracks {
            track.set((0, 0, 0));
        }
        self.facts.set((0, 0, 0));
        self.turn.set(1);
        1
    }
}

/// The square holding piece identity `id` (the first one, scanning from a1), if any. Reads
/// sixteen squares at a time: this runs for every look at a piece variable.
#[cfg(target_arch = "x86_64")]
fn find_identity(ids: &PieceIds, id: PieceId) -> Option<Square> {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    if id == 0 {
        return None;
    }
    let board = ids.0.as_ptr().cast::<__m128i>();
    // SAFETY: SSE2 is part of every x86-64 processor, and the four unaligned 16-byte loads
    // read exactly the 64 bytes of the array.
    let found = unsafe {
        let wanted = _mm_set1_epi8(id as i8);
        let quarter = |k: usize| _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(board.add(k)), wanted)) as u16 as u64;
        quarter(0) | quarter(1) << 16 | quarter(2) << 32 | quarter(3) << 48
    };
    (found != 0).then(|| Square::new(found.trailing_zeros()))
}

/// The square holding piece identity `id` (the first one, scanning from a1), if any. Reads
/// eight squares at a time: this runs for every look at a piece variable.
#[cfg(not(target_arch = "x86_64"))]
fn find_identity(ids: &PieceIds, id: PieceId) -> Option<Square> {
    if id == 0 {
        return None;
    }
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * id as u64;
    for (k, chunk) in ids.0.chunks_exact(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let x = u64::from_le_bytes(bytes) ^ pattern;
        // The lowest flagged byte is the first byte equal to `id` (flags above it may be false).
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(Square::new((k * 8) as u32 + zero.trailing_zeros() / 8));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_square_of_an_identity_on_every_square() {
        for sq in Square::ALL {
            let mut ids = PieceIds::default();
            ids.0[sq as usize] = 17;
            assert_eq!(find_identity(&ids, 17), Some(sq));
            assert_eq!(find_identity(&ids, 18), None);
            assert_eq!(find_identity(&ids, 0), None, "0 is no piece, never found");
        }
    }

    #[test]
    fn agrees_with_a_plain_scan_on_crowded_boards() {
        // Identities 1..=255 spread over the board in a fixed pseudo-random order, with values
        // (1, 0x80, 0x81, 0xff) that trip simple byte tricks, and repeated identities.
        let mut ids = PieceIds::default();
        let mut x = 7u32;
        for (i, slot) in ids.0.iter_mut().enumerate() {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            *slot = if i % 5 == 0 { [1, 0x80, 0x81, 0xff][i % 4] } else { (x >> 16) as u8 };
        }
        for id in 1..=255u8 {
            let plain = ids.0.iter().position(|&v| v == id).map(|i| Square::new(i as u32));
            assert_eq!(find_identity(&ids, id), plain, "identity {id}");
        }
    }

    /// A game's turn matches no entry of an earlier game, also when the turns run out and
    /// start again (the table is then cleared).
    #[test]
    fn square_memo_turns_never_match_an_earlier_game() {
        let memo = SquareMemo::default();
        let first = memo.next_game();
        memo.slots[7].set(first << 41 | 1 << 8 | 12);
        let second = memo.next_game();
        assert_ne!(first, second);
        assert_ne!(memo.slots[7].get() & !0xff, second << 41 | 1 << 8);
        memo.turn.set(SquareMemo::TURNS - 1);
        memo.slots[7].set((SquareMemo::TURNS - 1) << 41 | 1 << 8 | 12);
        let wrapped = memo.next_game();
        assert_eq!(wrapped, 1);
        assert!(memo.slots.iter().all(|slot| slot.get() == 0));
        // The largest node number and square still fit below the turn.
        let key = (SquareMemo::TURNS - 1) << 41 | (u64::from(u32::MAX) + 1) << 8 | 64;
        assert_eq!(key >> 41, SquareMemo::TURNS - 1);
    }
}
