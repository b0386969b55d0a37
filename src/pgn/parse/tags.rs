//! Reading the tag pairs of a game's header: `[Name "value"]`, escapes undone, with the
//! limits on a tag's length.
//!
//! Takes in: the cursor of the game parser at a `[`. Gives out: the tag's name and value.
//! Must never: read past the tag's own line, or keep a tag longer than the limit.

use super::{is_blank, Cursor, BYTE_CLASS, ENDS_TAG_NAME, MAX_TAG_BYTES};
use crate::pgn::{GameError, GameErrorKind, Tag};

/// Read `[Name "value"]` at the cursor into `tag` (escapes `\"` and `\\` undone). The
/// tag must close on its own line. Plain stretches of the value are found sixteen bytes
/// at a time and copied whole.
pub(super) fn read_one_tag(cur: &mut Cursor<'_>, tag: &mut Tag) -> Result<(), GameError> {
    let open_line = cur.line;
    let unterminated = || GameError { kind: GameErrorKind::UnterminatedTag, line: open_line };
    let bytes = cur.bytes;
    // Blanks within the line (a line feed is blank too, and ends the line).
    let skip_blanks = |mut i: usize| {
        while i < bytes.len() && bytes[i] != b'\n' && is_blank(bytes[i]) {
            i += 1;
        }
        i
    };
    let mut i = skip_blanks(cur.pos + 1);
    let name_start = i;
    // A tag name ends at a blank, `"` or `]`.
    let (end, known_ascii) = tag_name_end(bytes, i);
    i = end;
    let name = &bytes[name_start..i];
    // The tag in this place of the previous game mostly had the same name.
    if !crate::pgn::same_bytes(tag.name.as_bytes(), name) || !(known_ascii || name.is_ascii()) {
        tag.name.clear();
        tag.name.extend(name.iter().map(|&b| b as char));
    }
    tag.value.clear();
    i = skip_blanks(i);
    if i < bytes.len() && bytes[i] == b']' {
        // `[Name]` with no value.
        cur.pos = i + 1;
        return Ok(());
    }
    if i >= bytes.len() || bytes[i] != b'"' {
        return Err(unterminated());
    }
    i += 1;
    loop {
        let stop = crate::input::find_byte_of(bytes, i, [b'"', b'\\', b'\n', b'\n']);
        if tag.value.len() + (stop - i) > MAX_TAG_BYTES {
            return Err(too_long("tag value", tag.value.len() + (stop - i), MAX_TAG_BYTES, open_line));
        }
        append_run(&mut tag.value, bytes, i, stop);
        i = stop;
        match bytes.get(i) {
            None | Some(b'\n') => return Err(unterminated()),
            Some(b'\\') => {
                if matches!(bytes.get(i + 1), Some(b'"' | b'\\')) {
                    tag.value.push(bytes[i + 1]);
                    i += 2;
                } else {
                    tag.value.push(b'\\');
                    i += 1;
                }
            }
            _ => {
                // The closing quote is the one followed by `]`; others belong to the value.
                let j = skip_blanks(i + 1);
                if j < bytes.len() && bytes[j] == b']' {
                    cur.pos = j + 1;
                    return Ok(());
                }
                tag.value.push(b'"');
                i += 1;
            }
        }
    }
}

/// The error for a comment or tag value longer than its limit.
pub(super) fn too_long(what: &str, len: usize, max: usize, line: u64) -> GameError {
    GameError { kind: GameErrorKind::Syntax(format!("a {what} of {len} bytes, more than the {max} read")), line }
}

/// Append `src[from..to]` to `dst` sixteen bytes at a time: each step copies a whole
/// sixteen-byte block (a fixed-size copy the compiler does in one move) and the surplus of
/// the last one is cut off. Tag values are mostly shorter than sixteen bytes, so this is
/// one step where a call to `memcpy` would branch on the varying length.
#[inline]
pub(super) fn append_run(dst: &mut Vec<u8>, src: &[u8], from: usize, to: usize) {
    let wanted = dst.len() + (to - from);
    let mut k = from;
    while k < to {
        match src.get(k..k + 16) {
            Some(block) => {
                let block: &[u8; 16] = block.try_into().expect("sixteen bytes");
                dst.extend_from_slice(block);
                k += 16;
            }
            None => {
                dst.extend_from_slice(&src[k..to]);
                break;
            }
        }
    }
    dst.truncate(wanted);
}

/// The index of the first byte from `from` on that ends a tag name (a blank, `"` or
/// `]`; `bytes.len()` if none). On x86-64 sixteen bytes are looked at with SSE2 at once:
/// a tag name mostly fits in them, so the search ends without a byte-by-byte loop whose
/// end the processor cannot foresee. Bytes from 0x7f up are only candidates there (few
/// of them are blanks) and are settled by the table.
/// Also says whether the name is known to be ASCII (when the sixteen-byte search found its
/// end, every byte before it is below 0x7f).
#[inline]
pub(super) fn tag_name_end(bytes: &[u8], from: usize) -> (usize, bool) {
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        while let Some(chunk) = bytes.get(i..i + 16) {
            // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `chunk`.
            let (ends, high) = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                let control_or_space = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(b' ' as i8)), v);
                let quote_or_bracket = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b']' as i8)),
                );
                let delete = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f));
                // The sign bit of each byte marks the bytes from 0x80 up.
                (
                    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(control_or_space, quote_or_bracket), delete)) as u32,
                    _mm_movemask_epi8(v) as u32,
                )
            };
            let mask = ends | high;
            if mask != 0 && mask & mask.wrapping_neg() & high == 0 {
                // The first byte found is below 0x80, so it ends the name (every such
                // byte found does), and no byte before it is from 0x80 up: settled
                // without looking the byte up.
                return (i + mask.trailing_zeros() as usize, true);
            }
            if mask != 0 {
                i += mask.trailing_zeros() as usize;
                if BYTE_CLASS[bytes[i] as usize] & ENDS_TAG_NAME != 0 {
                    return (i, bytes[i] < 0x7f);
                }
                // A non-ASCII letter of the name: on byte by byte.
                break;
            }
            i += 16;
        }
    }
    while i < bytes.len() && BYTE_CLASS[bytes[i] as usize] & ENDS_TAG_NAME == 0 {
        i += 1;
    }
    (i, false)
}
