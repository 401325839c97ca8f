//! The emulated POOL cluster of PLATFORM.md: the address and register map ([`map`]), shared HBM
//! ([`hbm`]), one core's bus ([`bus`]) with its MMIO devices behind one interface ([`device`]) —
//! translate windows ([`mem_window`]), SDMA ([`sdma`]), mailbox ([`mailbox`]), console
//! ([`console`]) — what the devices keep for the run's timeline ([`recording`]), the SoC ↔ XT
//! window table ([`soc`]) and eight cores on parallel threads ([`cluster`]).

pub mod bus;
pub mod cluster;
pub mod console;
pub mod device;
pub mod hbm;
pub mod mailbox;
pub mod map;
pub mod mem_window;
pub mod recording;
pub mod sdma;
pub mod soc;
pub mod trace_port;

pub use bus::{PlatformBus, PlatformCounters};
pub use cluster::{Cluster, ClusterCheckpoint, ClusterConfig};
pub use console::{ConsoleRing, ConsoleSize};
pub use device::Device;
pub use hbm::{Hbm, HbmError};
pub use mailbox::Mailbox;
