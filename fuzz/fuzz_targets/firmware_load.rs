//! Arbitrary bytes staged in HBM as a library image and loaded by a 0x1095 record on one core of
//! a persistent device: the firmware never panics — a bad header, trailer or table is an error,
//! and whatever the image's start symbol and kernel execute (arbitrary code included) ends in an
//! exit, a fault report or the cycle budget.
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use q7_emulator::platform::{Cluster, ClusterConfig};
use q7_loader::load_record::LoadRecord;
use q7_runtime::firmware::Firmware;

struct Device {
    firmware: Firmware,
    staging: u64,
}

const STAGING: u64 = 0x20_0000;

fn device() -> &'static Mutex<Device> {
    static DEVICE: OnceLock<Mutex<Device>> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let cluster = Cluster::new(&ClusterConfig {
            hbm_bytes: 1 << 30,
            ..ClusterConfig::default()
        })
        .expect("HBM maps");
        let staging = cluster.hbm.alloc(STAGING, 4096).expect("staging buffer");
        let mut firmware = Firmware::new(cluster);
        firmware.call_budget = 200_000;
        Mutex::new(Device { firmware, staging })
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 || data.len() as u64 > STAGING {
        return;
    }
    let mut d = device().lock().unwrap_or_else(|e| e.into_inner());
    let core = u32::from(data[0] & 7);
    let selector = u32::from(data[1] & 3);
    let image = &data[2..];
    let staging = d.staging;
    d.firmware
        .cluster
        .hbm
        .write(staging, image)
        .expect("staging is in HBM");
    let record = LoadRecord::load(staging, selector, image.len() as u32).encode();
    if d.firmware.process(core, &record).is_ok() {
        let _ = d.firmware.dispatch(0x185, 133, 0, &[[0u8; 0x30]], 1);
        let _ = d
            .firmware
            .process(core, &LoadRecord::unload(selector).encode());
    }
});
