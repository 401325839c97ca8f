//! What a core keeps of what it did, for the run's timeline (docs/tracing.md "Timeline"): the
//! records of its devices — annotation-port events, SDMA transfers, MEM_WINDOW writes — kept
//! while a [`Recording`] is on, within its room. A core's devices share one [`Recording`]
//! (the bus's, reached through `DeviceCtx`), so their lists together never pass the room.
//!
//! Each record counts as the events it becomes in the timeline ([`Record::weight`],
//! docs/tracing.md "Timeline", "Cap"), so that the room bounds the file as well as the memory.
//! Once a record does not fit, nothing more is kept until the room is set again: what is kept
//! is always the records from the start up to the first one refused, which the timeline cuts
//! at one cycle across all the lists. Recording changes no cycle.

/// A record a device (or the timeline's tracer) keeps: when it happened and what it counts for.
pub trait Record {
    /// The core cycle it happened at; a list's records are kept in the order of their cycles.
    fn cycle(&self) -> u64;
    /// The events of the timeline it becomes (docs/tracing.md "Timeline", "Cap"): at least 1.
    fn weight(&self) -> u64;
}

/// Whether a core keeps records, and how many more events' worth it may keep.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recording {
    /// Keep records; off by default, and off nothing is kept or counted.
    pub on: bool,
    /// The events' worth of records that may still be kept; `None` for no limit.
    pub room: Option<u64>,
    /// The events' worth of records refused for want of room since the room was set.
    pub dropped: u64,
    /// The cycle of the first record refused since the room was set.
    pub first_dropped: Option<u64>,
}

impl Recording {
    /// On, with `room` events' worth of records to keep (`None`: no limit).
    pub fn with_room(room: Option<u64>) -> Recording {
        Recording {
            on: true,
            room,
            dropped: 0,
            first_dropped: None,
        }
    }

    /// Whether a record of `weight` events at `cycle` may be kept: takes it from the room, or
    /// counts it as dropped and keeps nothing more (the room becomes 0). Off, `false` and
    /// nothing is counted.
    #[inline]
    pub fn admit(&mut self, cycle: u64, weight: u64) -> bool {
        if !self.on {
            return false;
        }
        match &mut self.room {
            None => true,
            Some(room) if *room >= weight => {
                *room -= weight;
                true
            }
            Some(room) => {
                *room = 0;
                self.dropped += weight;
                self.first_dropped.get_or_insert(cycle);
                false
            }
        }
    }

    /// Pushes `item` onto `list` if [`Recording::admit`] lets it in.
    #[inline]
    pub fn keep<T: Record>(&mut self, list: &mut Vec<T>, item: T) {
        if self.admit(item.cycle(), item.weight()) {
            list.push(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct R(u64, u64);

    impl Record for R {
        fn cycle(&self) -> u64 {
            self.0
        }
        fn weight(&self) -> u64 {
            self.1
        }
    }

    #[test]
    fn off_keeps_and_counts_nothing() {
        let (mut rec, mut list) = (Recording::default(), Vec::new());
        rec.keep(&mut list, R(1, 1));
        assert_eq!((list, rec), (vec![], Recording::default()));
    }

    #[test]
    fn without_a_limit_everything_is_kept() {
        let (mut rec, mut list) = (Recording::with_room(None), Vec::new());
        for c in 0..1000 {
            rec.keep(&mut list, R(c, 3));
        }
        assert_eq!((list.len(), rec.dropped, rec.room), (1000, 0, None));
    }

    #[test]
    fn the_first_record_that_does_not_fit_ends_the_keeping() {
        let (mut rec, mut list) = (Recording::with_room(Some(5)), Vec::new());
        rec.keep(&mut list, R(10, 1));
        rec.keep(&mut list, R(11, 3));
        rec.keep(&mut list, R(12, 3)); // 1 left: refused
        rec.keep(&mut list, R(13, 1)); // would fit, but the keeping has ended
        assert_eq!(list, [R(10, 1), R(11, 3)]);
        assert_eq!(
            rec,
            Recording {
                on: true,
                room: Some(0),
                dropped: 4,
                first_dropped: Some(12)
            }
        );
    }
}
