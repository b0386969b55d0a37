//! Line scanning for the splitter: finding bytes, skipping tag pairs and movetext, and
//! telling a line that starts a new game.
//!
//! Takes in: the bytes of a block of input. Gives out: positions and yes/no answers about
//! its lines, by the rules in the module docs of [`super`].
//! Must never: allocate, or read past the bytes given.

use super::is_blank;

/// The first index from `from` on whose byte is one of `set` (`bytes.len()` if none).
/// Sixteen bytes at a time with SSE2 on x86-64 (always present there); the ranges
/// searched are short (a tag value, a line of moves), where `memchr`'s set-up costs
/// more than the search.
#[inline(always)]
pub(crate) fn find_byte_of(bytes: &[u8], from: usize, set: [u8; 4]) -> usize {
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
        while let Some(chunk) = bytes.get(i..i + 16) {
            // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `chunk`.
            let mask = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                let a = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[0] as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[1] as i8)),
                );
                let b = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[2] as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[3] as i8)),
                );
                _mm_movemask_epi8(_mm_or_si128(a, b)) as u32
            };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    while i < bytes.len() && !set.contains(&bytes[i]) {
        i += 1;
    }
    i
}

/// Where the run of whole lines of plain movetext starting at `bytes[from]` ends, and how
/// many lines it holds: lines that end with a line feed and hold none of `{`, `;`, `[`
/// and `%` (so no comment, tag or escape line starts in them). Such a line, read inside a
/// game's movetext and outside a comment, only counts as a line (and as blank or not), so
/// the splitter steps over the run at once. `(from, 0)` when the first line is not one.
/// Sixteen bytes at a time with SSE2 on x86-64, counting the line feeds as it goes.
/// With AVX2 (looked up once at run time) the bulk is read thirty-two bytes at a time
/// first: movetext is most of a PGN file's bytes, and this search is most of the cost of
/// cutting it into games.
#[inline]
pub(super) fn plain_movetext_lines(bytes: &[u8], from: usize) -> (usize, u64) {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() - from.min(bytes.len()) >= 64 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above).
        let (i, end, lines, stopped) = unsafe { plain_movetext_lines_avx2(bytes, from) };
        if stopped {
            return (end, lines);
        }
        // The tail, shorter than thirty-two bytes, the narrow way.
        let (tail_end, tail_lines) = plain_movetext_lines_narrow(bytes, i);
        return (if tail_lines > 0 { tail_end } else { end }, lines + tail_lines);
    }
    plain_movetext_lines_narrow(bytes, from)
}

/// The thirty-two-byte steps of [`plain_movetext_lines`]: where the steps ended, the end
/// of the last whole plain line found and the number of plain lines, and whether a stop
/// byte (`{ ; [ %`) was met (then the answer is complete; otherwise the bytes from the
/// first index on, fewer than thirty-two, are still to be read).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn plain_movetext_lines_avx2(bytes: &[u8], from: usize) -> (usize, usize, u64, bool) {
    use std::arch::x86_64::{
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };
    let mut i = from;
    let mut end = from;
    let mut lines = 0u64;
    while let Some(chunk) = bytes.get(i..i + 32) {
        // SAFETY: AVX2 is enabled for this function; the load reads the 32 bytes of `chunk`.
        let (feeds, stops) = unsafe {
            let v = _mm256_loadu_si256(chunk.as_ptr().cast());
            let is_feed = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\n' as i8));
            let a = _mm256_or_si256(
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'{' as i8)),
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b';' as i8)),
            );
            let b = _mm256_or_si256(
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'[' as i8)),
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'%' as i8)),
            );
            (_mm256_movemask_epi8(is_feed) as u32, _mm256_movemask_epi8(_mm256_or_si256(a, b)) as u32)
        };
        // Only the line feeds before the first stop byte end plain lines.
        let before = if stops != 0 { feeds & ((1u32 << stops.trailing_zeros()) - 1) } else { feeds };
        lines += u64::from(before.count_ones());
        if before != 0 {
            end = i + 32 - before.leading_zeros() as usize;
        }
        if stops != 0 {
            return (i, end, lines, true);
        }
        i += 32;
    }
    (i, end, lines, false)
}

/// [`plain_movetext_lines`] sixteen bytes at a time (SSE2, part of every x86-64).
#[inline]
fn plain_movetext_lines_narrow(bytes: &[u8], from: usize) -> (usize, u64) {
    let mut i = from;
    let mut end = from;
    let mut lines = 0u64;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_sad_epu8,
            _mm_set1_epi8, _mm_setzero_si128, _mm_sub_epi8, _mm_unpackhi_epi64,
        };
        // Line feeds are counted in sixteen byte-wide lanes (a lane holds up to 255), which
        // are summed every 255 chunks and at the end: no bit count per chunk (x86-64 has no
        // `popcnt` before its v2 level). The last chunk holding a line feed is remembered
        // without a branch, since whether a chunk holds one is as good as random.
        // SAFETY (every intrinsic below): SSE2 is part of x86-64.
        let lanes_total = |lanes: __m128i| -> u64 {
            unsafe {
                let sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
                (_mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums))) as u64
            }
        };
        let mut lanes = unsafe { _mm_setzero_si128() };
        let mut chunks_in_lanes = 0u32;
        let (mut last_chunk, mut last_feeds) = (i, 0u32);
        while let Some(chunk) = bytes.get(i..i + 16) {
            // SAFETY: SSE2; the load reads the 16 bytes of `chunk`.
            let (is_feed, feeds, stops) = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                let is_feed = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8));
                let a = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'{' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b';' as i8)),
                );
                let b = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'[' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'%' as i8)),
                );
                (is_feed, _mm_movemask_epi8(is_feed) as u32, _mm_movemask_epi8(_mm_or_si128(a, b)) as u32)
            };
            if stops != 0 {
                // Only the line feeds before the first stop byte end plain lines.
                let before = feeds & ((1u32 << stops.trailing_zeros()) - 1);
                lines += lanes_total(lanes) + u64::from(before.count_ones());
                let (at, feeds) = if before != 0 { (i, before) } else { (last_chunk, last_feeds) };
                return if feeds != 0 { (at + 32 - feeds.leading_zeros() as usize, lines) } else { (end, lines) };
            }
            // A line feed compares as -1: subtracting counts it.
            lanes = unsafe { _mm_sub_epi8(lanes, is_feed) };
            last_chunk = if feeds != 0 { i } else { last_chunk };
            last_feeds = if feeds != 0 { feeds } else { last_feeds };
            chunks_in_lanes += 1;
            if chunks_in_lanes == 255 {
                lines += lanes_total(lanes);
                lanes = unsafe { _mm_setzero_si128() };
                chunks_in_lanes = 0;
            }
            i += 16;
        }
        lines += lanes_total(lanes);
        if last_feeds != 0 {
            end = last_chunk + 32 - last_feeds.leading_zeros() as usize;
        }
    }
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' | b';' | b'[' | b'%' => break,
            b'\n' => {
                lines += 1;
                end = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    (end, lines)
}

/// Is the last line of `lines` (whole lines, the last ending with its line feed) blank?
#[inline]
pub(super) fn last_line_is_blank(lines: &[u8]) -> bool {
    let body = &lines[..lines.len().saturating_sub(1)];
    for &b in body.iter().rev() {
        if b == b'\n' {
            return true;
        }
        if !is_blank(b) {
            return false;
        }
    }
    true
}

/// [`skip_tag_pairs`] for the one tag pair that a line of `bytes` starts with at `ls`
/// (`bytes[ls] == b'['`), where the line's end is not known yet: the index just after
/// its closing `]`, or `None` when the tag does not close before the line feed (or the
/// end of `bytes`), which the general way then handles.
#[inline]
pub(super) fn skip_tag_pairs_quick(bytes: &[u8], ls: usize) -> Option<usize> {
    // The usual shape first, `[Name "value"]` with no escape: two searches, each
    // ending where it is expected to.
    let open = find_byte_of(bytes, ls + 1, [b'"', b'\\', b']', b'\n']);
    if bytes.get(open) == Some(&b'"') {
        let close = find_byte_of(bytes, open + 1, [b'"', b'\\', b'\n', b'\n']);
        if bytes.get(close) == Some(&b'"') && bytes.get(close + 1) == Some(&b']') {
            return Some(close + 2);
        }
    }
    let mut i = ls + 1;
    let mut in_quote = false;
    loop {
        i = find_byte_of(bytes, i, [b'"', b'\\', b']', b'\n']);
        match *bytes.get(i)? {
            b'\n' => return None,
            b'\\' if in_quote => {
                if bytes.get(i + 1).is_none_or(|&b| b == b'\n') {
                    return None;
                }
                i += 2;
            }
            b'"' => {
                in_quote = !in_quote;
                i += 1;
            }
            b']' if !in_quote => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// Skip the tag pairs at the start of a line (`[Name "value"] [Other "x"]`); return the
/// index of the first byte after them (the line's length if nothing else follows).
/// A tag whose quote or bracket never closes takes the rest of the line.
pub(super) fn skip_tag_pairs(line: &[u8], mut i: usize) -> usize {
    loop {
        while i < line.len() && is_blank(line[i]) {
            i += 1;
        }
        if i >= line.len() || line[i] != b'[' {
            return i;
        }
        i += 1;
        let mut in_quote = false;
        loop {
            // Ordinary bytes are stepped over sixteen at a time.
            i = find_byte_of(line, i, [b'"', b'\\', b']', b']']);
            if i >= line.len() {
                return i;
            }
            match line[i] {
                b'\\' if in_quote => i += 1,
                b'"' => in_quote = !in_quote,
                b']' if !in_quote => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// Scan movetext bytes of one line from `from`, starting inside a brace comment if
/// `in_comment`; return whether a brace comment is still open at the end of the line.
pub(super) fn scan_movetext(line: &[u8], from: usize, mut in_comment: bool) -> bool {
    let mut i = from;
    while i < line.len() {
        if in_comment {
            match memchr::memchr(b'}', &line[i..]) {
                Some(p) => {
                    in_comment = false;
                    i += p + 1;
                }
                None => return true,
            }
        } else {
            match memchr::memchr2(b'{', b';', &line[i..]) {
                Some(p) if line[i + p] == b'{' => {
                    in_comment = true;
                    i += p + 1;
                }
                // `;` comments out the rest of the line, braces included.
                Some(_) | None => return false,
            }
        }
    }
    in_comment
}

/// The tag name at the start of `tag` (which begins with `[`).
fn tag_name(tag: &[u8]) -> &[u8] {
    let rest = &tag[1..];
    let start = rest.iter().position(|&b| !is_blank(b)).unwrap_or(rest.len());
    let len = rest[start..].iter().take_while(|&&b| !is_blank(b) && b != b'"' && b != b']').count();
    &rest[start..start + len]
}

/// Does the tag on `tag_line` name a tag already given in the tag section `section`?
/// (Then a blank line and this tag start a new, header-only game.)
pub(super) fn repeats_tag_name(section: &[u8], tag_line: &[u8]) -> bool {
    let name = tag_name(tag_line);
    if name.is_empty() {
        return false;
    }
    section.split(|&b| b == b'\n').any(|line| {
        let first = line.iter().position(|&b| !is_blank(b));
        first.is_some_and(|f| line[f] == b'[' && tag_name(&line[f..]) == name)
    })
}

/// Does this line (from its first non-blank byte) look exactly like a tag pair
/// `[Name "value"]` and nothing else?
pub(crate) fn looks_like_tag_pair(line: &[u8]) -> bool {
    let mut end = line.len();
    while end > 0 && is_blank(line[end - 1]) {
        end -= 1;
    }
    let line = &line[..end];
    if line.len() < 5 || line[0] != b'[' || line[end - 1] != b']' || line[end - 2] != b'"' {
        return false;
    }
    let name_len = line[1..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
    if name_len == 0 {
        return false;
    }
    let rest = &line[1 + name_len..end - 1];
    let spaces = rest.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    spaces > 0 && rest.get(spaces) == Some(&b'"') && rest.len() > spaces + 1
}
