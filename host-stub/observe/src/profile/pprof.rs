//! `profile.pb.gz` (docs/profiling.md "pprof"): the profile in pprof's format, the
//! `perftools.profiles.Profile` protocol buffer, gzip-compressed — what `go tool pprof`,
//! speedscope and Perfetto open.
//!
//! Sample types: `cycles`, `issue` and each stall category of the run report (unit `cycles`),
//! then `instructions` (unit `count`). One sample per instruction address per call path, with
//! a `core` label; its locations, innermost first, are the instruction (with its function and
//! line) and each calling function (at its entry). Each core's image is a mapping of its own.

use std::collections::HashMap;
use std::io::Write;

use q7_emulator::timing::Stalls;

use super::model::{Counts, Profile};

/// A protocol-buffer message being written.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    /// A varint field (wire type 0); zero is left out, as proto3 does.
    fn uint(&mut self, field: u32, v: u64) {
        if v != 0 {
            self.varint(u64::from(field) << 3);
            self.varint(v);
        }
    }

    /// A length-delimited field (wire type 2).
    fn bytes(&mut self, field: u32, b: &[u8]) {
        self.varint((u64::from(field) << 3) | 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    /// A packed repeated varint field.
    fn packed(&mut self, field: u32, values: impl Iterator<Item = u64>) {
        let mut body = Message::default();
        for v in values {
            body.varint(v);
        }
        self.bytes(field, &body.0);
    }
}

/// The string table: index 0 is the empty string.
struct Strings {
    list: Vec<String>,
    index: HashMap<String, u64>,
}

impl Strings {
    fn new() -> Strings {
        Strings {
            list: vec![String::new()],
            index: HashMap::from([(String::new(), 0)]),
        }
    }

    fn id(&mut self, s: &str) -> u64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u64;
        self.list.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// The sample types, in value order: (type, unit).
pub fn sample_types() -> Vec<(String, &'static str)> {
    let mut types = vec![
        ("cycles".to_string(), "cycles"),
        ("issue".to_string(), "cycles"),
    ];
    types.extend(Stalls::LABELS.iter().map(|l| (l.to_string(), "cycles")));
    types.push(("instructions".to_string(), "count"));
    types
}

/// A sample's values, in [`sample_types`] order.
pub fn values(c: &Counts) -> Vec<u64> {
    let mut v = vec![c.cycles, c.issue];
    v.extend(Stalls::LABELS.iter().map(|l| c.stall(l)));
    v.push(c.instructions);
    v
}

/// `file:line` split at its last colon.
fn file_line(text: &str) -> Option<(&str, u64)> {
    let (file, line) = text.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// The uncompressed protocol buffer of `profile`.
pub fn encode(profile: &Profile) -> Vec<u8> {
    let mut strings = Strings::new();
    let mut out = Message::default();
    for (kind, unit) in sample_types() {
        let mut vt = Message::default();
        vt.uint(1, strings.id(&kind));
        vt.uint(2, strings.id(unit));
        out.bytes(1, &vt.0);
    }
    // Functions by name; locations by (core, address, whether a leaf).
    let mut functions: HashMap<String, u64> = HashMap::new();
    let mut function_msgs: Vec<Message> = Vec::new();
    let mut locations: HashMap<(u32, u32, bool), u64> = HashMap::new();
    let mut location_msgs: Vec<Message> = Vec::new();
    let mut function_id = |name: &str, file: &str, strings: &mut Strings| -> u64 {
        if let Some(&id) = functions.get(name) {
            return id;
        }
        let id = functions.len() as u64 + 1;
        let mut f = Message::default();
        f.uint(1, id);
        f.uint(2, strings.id(name));
        f.uint(3, strings.id(name));
        f.uint(4, strings.id(file));
        function_msgs.push(f);
        functions.insert(name.to_string(), id);
        id
    };
    let core_key = strings.id("core");
    for core in &profile.cores {
        let mapping = u64::from(core.core) + 1;
        let core_name = strings.id(&core.core.to_string());
        let mut m = Message::default();
        m.uint(1, mapping);
        m.uint(3, u64::from(u32::MAX) + 1);
        m.uint(5, strings.id(&core.image));
        m.uint(7, u64::from(core.symbols));
        m.uint(8, u64::from(core.lines_known));
        m.uint(9, u64::from(core.lines_known));
        out.bytes(3, &m.0);
        let lines: HashMap<u32, Option<&str>> = core
            .instructions
            .iter()
            .map(|i| (i.pc, i.line.as_deref()))
            .collect();
        for s in &core.samples {
            let mut ids = Vec::with_capacity(s.frames.len());
            // The instruction, in the innermost frame's function, at its line.
            let (leaf_name, _) = s.frames.last().expect("a path has a frame");
            let key = (core.core, s.pc, true);
            let leaf = match locations.get(&key) {
                Some(&id) => id,
                None => {
                    let (file, line) = lines
                        .get(&s.pc)
                        .copied()
                        .flatten()
                        .and_then(file_line)
                        .unwrap_or(("", 0));
                    let f = function_id(leaf_name, file, &mut strings);
                    let id = location_msgs.len() as u64 + 1;
                    let mut l = Message::default();
                    l.uint(1, id);
                    l.uint(2, mapping);
                    l.uint(3, u64::from(s.pc));
                    let mut line_msg = Message::default();
                    line_msg.uint(1, f);
                    line_msg.uint(2, line);
                    l.bytes(4, &line_msg.0);
                    location_msgs.push(l);
                    locations.insert(key, id);
                    id
                }
            };
            ids.push(leaf);
            // Each caller, at its function's entry.
            for (name, entry) in s.frames.iter().rev().skip(1) {
                let key = (core.core, *entry, false);
                let id = match locations.get(&key) {
                    Some(&id) => id,
                    None => {
                        let f = function_id(name, "", &mut strings);
                        let id = location_msgs.len() as u64 + 1;
                        let mut l = Message::default();
                        l.uint(1, id);
                        l.uint(2, mapping);
                        l.uint(3, u64::from(*entry));
                        let mut line_msg = Message::default();
                        line_msg.uint(1, f);
                        l.bytes(4, &line_msg.0);
                        location_msgs.push(l);
                        locations.insert(key, id);
                        id
                    }
                };
                ids.push(id);
            }
            let mut sample = Message::default();
            sample.packed(1, ids.into_iter());
            sample.packed(2, values(&s.own).into_iter());
            let mut label = Message::default();
            label.uint(1, core_key);
            label.uint(2, core_name);
            sample.bytes(3, &label.0);
            out.bytes(2, &sample.0);
        }
    }
    for l in &location_msgs {
        out.bytes(4, &l.0);
    }
    for f in &function_msgs {
        out.bytes(5, &f.0);
    }
    for s in &strings.list {
        out.bytes(6, s.as_bytes());
    }
    // period_type (cycles, cycles), period 1: every cycle counted, none sampled.
    let mut period = Message::default();
    period.uint(1, strings.index["cycles"]);
    period.uint(2, strings.index["cycles"]);
    out.bytes(11, &period.0);
    out.uint(12, 1);
    out.0
}

/// `profile` as `profile.pb.gz` holds it: [`encode`], gzip-compressed.
pub fn gzip(profile: &Profile) -> std::io::Result<Vec<u8>> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&encode(profile))?;
    gz.finish()
}
