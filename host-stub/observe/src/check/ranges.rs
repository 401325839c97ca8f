//! Sets of byte ranges of HBM, with the tag of what first touched each (an instruction's PC, or
//! an SDMA transfer's number): what one core wrote or
//! read during one call (docs/checked-mode.md). Contiguous accesses — a loop storing element
//! after element, a DMA transfer after the last — extend the last range without a search, so
//! a streaming kernel costs one range; the set is kept merged, so its size is the number of
//! separate runs of bytes, not of accesses.

use std::collections::BTreeMap;

/// Disjoint, non-adjacent `[start, end)` ranges, each with the tag of the first access to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranges {
    /// start → (end, first tag).
    map: BTreeMap<u64, (u64, u64)>,
    /// The range the last insertion grew, kept out of `map` until an insertion does not touch
    /// it: (start, end, first tag).
    open: Option<(u64, u64, u64)>,
}

impl Ranges {
    /// Adds `[start, end)` touched at `pc` (a PC already recorded for any of its bytes stays).
    /// Whether it began a new run of bytes (it did not touch the run the last insertion grew),
    /// whose PC [`Ranges::iter`] may report.
    #[inline]
    pub fn insert(&mut self, start: u64, end: u64, pc: u64) -> bool {
        if start >= end {
            return false;
        }
        if let Some((s, e, _)) = &mut self.open {
            if start <= *e && end >= *s {
                *s = (*s).min(start);
                *e = (*e).max(end);
                return false;
            }
        }
        self.flush();
        self.open = Some((start, end, pc));
        true
    }

    /// Merges the open range into the map.
    fn flush(&mut self) {
        let Some((mut start, mut end, mut pc)) = self.open.take() else {
            return;
        };
        // Every range touching [start, end] merges into it; the earliest-starting one's PC
        // is kept only when it begins before `start`.
        let touching: Vec<u64> = self
            .map
            .range(..=end)
            .rev()
            .take_while(|(_, (e, _))| *e >= start)
            .map(|(s, _)| *s)
            .collect();
        for s in touching {
            let (e, p) = self.map.remove(&s).expect("listed above");
            if s < start {
                pc = p;
            }
            start = start.min(s);
            end = end.max(e);
        }
        self.map.insert(start, (end, pc));
    }

    /// The ranges, in address order: (start, end, first PC).
    pub fn iter(&mut self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.flush();
        self.map.iter().map(|(s, (e, p))| (*s, *e, *p))
    }

    /// Whether every byte of `[start, end)` is in the set. The set being merged, they are all
    /// in one range; no search when it is the one the last insertion grew.
    pub fn covers(&mut self, start: u64, end: u64) -> bool {
        if start >= end {
            return true;
        }
        if let Some((s, e, _)) = self.open {
            if s <= start && end <= e {
                return true;
            }
        }
        self.flush();
        self.map
            .range(..=start)
            .next_back()
            .is_some_and(|(_, &(e, _))| end <= e)
    }

    /// Whether the run the last insertion grew holds every byte of `[start, end)`: what
    /// [`Ranges::covers`] says, without a search, for a set written in one run.
    pub fn run_covers(&self, start: u64, end: u64) -> bool {
        self.open.is_some_and(|(s, e, _)| s <= start && end <= e)
    }

    /// The parts of `[start, end)` not in the set, in order.
    pub fn missing(&mut self, start: u64, end: u64) -> Vec<(u64, u64)> {
        self.flush();
        let mut out = Vec::new();
        let mut at = start;
        let first = self
            .map
            .range(..=start)
            .next_back()
            .map(|(s, _)| *s)
            .unwrap_or(start);
        for (&s, &(e, _)) in self.map.range(first..end) {
            if e <= at {
                continue;
            }
            if s > at {
                out.push((at, s.min(end)));
            }
            at = at.max(e);
            if at >= end {
                break;
            }
        }
        if at < end {
            out.push((at, end));
        }
        out
    }

    /// The bytes both sets hold: (start, end, this set's first PC there, `other`'s), in order.
    pub fn overlaps(&mut self, other: &mut Ranges) -> Vec<(u64, u64, u64, u64)> {
        self.flush();
        other.flush();
        let (a, b): (Vec<_>, Vec<_>) = (
            self.map.iter().map(|(s, (e, p))| (*s, *e, *p)).collect(),
            other.map.iter().map(|(s, (e, p))| (*s, *e, *p)).collect(),
        );
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        while i < a.len() && j < b.len() {
            let (lo, hi) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
            if lo < hi {
                out.push((lo, hi, a[i].2, b[j].2));
            }
            if a[i].1 < b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_accesses_make_one_range_with_the_first_pc() {
        let mut r = Ranges::default();
        for i in 0..1000u64 {
            r.insert(0x1000 + 4 * i, 0x1004 + 4 * i, 0x40 + (i % 2));
        }
        assert_eq!(
            r.iter().collect::<Vec<_>>(),
            [(0x1000, 0x1000 + 4000, 0x40)]
        );
    }

    #[test]
    fn separate_runs_stay_separate_and_a_bridge_merges_them() {
        let mut r = Ranges::default();
        r.insert(0, 4, 1);
        r.insert(8, 12, 2);
        r.insert(20, 24, 3);
        assert_eq!(r.iter().count(), 3);
        r.insert(4, 8, 4);
        assert_eq!(
            r.iter().collect::<Vec<_>>(),
            [(0, 12, 1), (20, 24, 3)],
            "[4, 8) joins [0, 4) and [8, 12); the run keeps the PC of its first bytes"
        );
        r.insert(10, 30, 5);
        assert_eq!(r.iter().collect::<Vec<_>>(), [(0, 30, 1)]);
    }

    #[test]
    fn missing_lists_the_gaps_of_a_range() {
        let mut r = Ranges::default();
        r.insert(100, 200, 1);
        r.insert(300, 400, 1);
        assert_eq!(r.missing(0, 500), [(0, 100), (200, 300), (400, 500)]);
        assert_eq!(r.missing(150, 350), [(200, 300)]);
        assert!(r.covers(120, 180));
        assert!(!r.covers(120, 220));
        assert!(!r.covers(50, 150), "bytes before the range");
        assert!(r.covers(100, 200) && r.covers(7, 7));
        assert_eq!(r.missing(250, 260), [(250, 260)]);
        r.insert(200, 300, 2);
        assert!(!r.run_covers(150, 350), "the last run alone does not");
        assert!(r.covers(150, 350), "the last run bridges the two");
        r.insert(400, 500, 3);
        assert!(r.run_covers(420, 500) && !r.run_covers(300, 500));
    }

    #[test]
    fn overlaps_pair_the_common_bytes_with_both_pcs() {
        let (mut a, mut b) = (Ranges::default(), Ranges::default());
        a.insert(0, 100, 1);
        a.insert(200, 300, 2);
        b.insert(50, 250, 3);
        assert_eq!(a.overlaps(&mut b), [(50, 100, 1, 3), (200, 250, 2, 3)]);
        let mut c = Ranges::default();
        c.insert(100, 200, 4);
        assert!(a.overlaps(&mut c).is_empty(), "adjacent is not overlapping");
    }
}
