//! The emulated POOL cluster of PLATFORM.md: the address map ([`map`]), shared HBM ([`hbm`]),
//! one core's bus with its devices ([`bus`], [`sdma`]), the SoC ↔ XT window table ([`soc`]) and
//! eight cores on parallel threads ([`cluster`]).

pub mod bus;
pub mod cluster;
pub mod hbm;
pub mod map;
pub mod sdma;
pub mod soc;

pub use bus::PlatformBus;
pub use cluster::{Cluster, ClusterConfig};
pub use hbm::{Hbm, HbmError};
