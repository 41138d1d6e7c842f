//! The text a history was read from, kept to find its operations' spans when a report shows
//! them ([`super::attach_input`]): bytes in memory, or ranges read from a file when asked (the
//! CLI's). Each look-up reads a window around one transaction, grown until its form (its lines,
//! in Plume text) is whole: through a mapped file, each touch brought its neighbouring pages
//! into the process too (the kernel maps around a fault), 1.2 GB for the 10,962 operations a
//! report of 5,436 findings showed at 10M transactions.

use std::borrow::Cow;

/// Bytes of the input by range.
pub trait InputText: Send + Sync {
    fn len(&self) -> usize;
    /// Bytes `start..end`, clipped to the text (empty when they cannot be read).
    fn bytes(&self, start: usize, end: usize) -> Cow<'_, [u8]>;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: AsRef<[u8]> + Send + Sync + ?Sized> InputText for T {
    fn len(&self) -> usize {
        self.as_ref().len()
    }
    fn bytes(&self, start: usize, end: usize) -> Cow<'_, [u8]> {
        let s = self.as_ref();
        let end = end.min(s.len());
        Cow::Borrowed(&s[start.min(end)..end])
    }
}

/// First window read before and after the place looked up; each retry takes four times more.
const BEHIND: usize = 1 << 10;
const AHEAD: usize = 1 << 12;

/// `find(window, at, cut)` over windows of `input` that start at the start of `offset`'s line
/// (`at`: `offset` in the window; `cut`: whether the window ends before the text), grown until
/// `find` answers or the window reaches the text's end. `find` answers `None` when the window
/// may have cut what it reads. With the answer, where the window starts in the text: what
/// `find` found in it is that far off.
pub(crate) fn around<R>(
    input: &dyn InputText,
    offset: usize,
    find: impl FnMut(&[u8], usize, bool) -> Option<R>,
) -> Option<(R, usize)> {
    windows(input, offset, true, find)
}

/// `find(window, cut)` over windows of `input` that start at `offset` itself, grown as
/// [`around`]'s are: for a reader that knows the column there (JSON's, often one line long).
pub(crate) fn ahead<R>(
    input: &dyn InputText,
    offset: usize,
    mut find: impl FnMut(&[u8], bool) -> Option<R>,
) -> Option<R> {
    windows(input, offset, false, |w, _, cut| find(w, cut)).map(|(r, _)| r)
}

/// [`around`], or with `to_line_start` false, [`ahead`].
fn windows<R>(
    input: &dyn InputText,
    offset: usize,
    to_line_start: bool,
    mut find: impl FnMut(&[u8], usize, bool) -> Option<R>,
) -> Option<(R, usize)> {
    let len = input.len();
    if offset >= len {
        return None;
    }
    let (mut behind, mut ahead) = (if to_line_start { BEHIND } else { 0 }, AHEAD);
    loop {
        let start = offset.saturating_sub(behind);
        let end = offset.saturating_add(ahead).min(len);
        let w = input.bytes(start, end);
        if w.len() != end - start {
            return None; // the text could not be read (a file gone or shortened)
        }
        let at = offset - start;
        let line = w[..at].iter().rposition(|&b| b == b'\n').map(|p| p + 1);
        let Some(from) = line.or((start == 0 || !to_line_start).then_some(0)) else {
            behind = behind.saturating_mul(4);
            continue;
        };
        let cut = end < len;
        if let Some(r) = find(&w[from..], at - from, cut) {
            return Some((r, start + from));
        }
        if !cut {
            return None;
        }
        ahead = ahead.saturating_mul(4);
    }
}
