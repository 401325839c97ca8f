//! The 0x1095 load/unload record (PLATFORM.md "Host ↔ device formats", "Load and unload
//! sequences"): 0x40 bytes the host hands to the device's
//! external-library loader. Layout (seed): +0x00 u16 magic 0x1095, +0x0c u8 direction
//! (1 = load, 2 = unload), +0x10 u64 device_addr, +0x18 u32 library_selector, +0x1c u32
//! image_size; all other bytes zero. An unload record names only the selector.

/// The record magic.
pub const MAGIC: u16 = 0x1095;
/// Record size.
pub const SIZE: usize = 0x40;

/// Load or unload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// 1: load the staged image.
    Load,
    /// 2: unload the library.
    Unload,
}

/// A load/unload record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadRecord {
    /// Direction.
    pub direction: Direction,
    /// Device address of the staged UCPL image (0 for unload).
    pub device_addr: u64,
    /// Library selector.
    pub selector: u32,
    /// Image size in bytes (0 for unload).
    pub image_size: u32,
}

/// Why bytes are not a load record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Not 0x40 bytes.
    #[error("load record is {len} bytes, expected 0x40")]
    Size {
        /// Length.
        len: usize,
    },
    /// Wrong magic.
    #[error("load record magic {found:#06x} at +0x00, expected 0x1095")]
    BadMagic {
        /// Found.
        found: u16,
    },
    /// Direction not 1 or 2.
    #[error("load record direction {found} at +0x0c, expected 1 (load) or 2 (unload)")]
    BadDirection {
        /// Found.
        found: u8,
    },
}

impl LoadRecord {
    /// A load record (direction 1).
    pub fn load(device_addr: u64, selector: u32, image_size: u32) -> Self {
        LoadRecord {
            direction: Direction::Load,
            device_addr,
            selector,
            image_size,
        }
    }

    /// An unload record (direction 2): the selector only.
    pub fn unload(selector: u32) -> Self {
        LoadRecord {
            direction: Direction::Unload,
            device_addr: 0,
            selector,
            image_size: 0,
        }
    }

    /// The 0x40 record bytes.
    pub fn encode(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[0..2].copy_from_slice(&MAGIC.to_le_bytes());
        b[0x0c] = match self.direction {
            Direction::Load => 1,
            Direction::Unload => 2,
        };
        b[0x10..0x18].copy_from_slice(&self.device_addr.to_le_bytes());
        b[0x18..0x1c].copy_from_slice(&self.selector.to_le_bytes());
        b[0x1c..0x20].copy_from_slice(&self.image_size.to_le_bytes());
        b
    }

    /// Parses a record.
    pub fn decode(b: &[u8]) -> Result<LoadRecord, RecordError> {
        if b.len() != SIZE {
            return Err(RecordError::Size { len: b.len() });
        }
        let magic = u16::from_le_bytes([b[0], b[1]]);
        if magic != MAGIC {
            return Err(RecordError::BadMagic { found: magic });
        }
        let direction = match b[0x0c] {
            1 => Direction::Load,
            2 => Direction::Unload,
            found => return Err(RecordError::BadDirection { found }),
        };
        Ok(LoadRecord {
            direction,
            device_addr: u64::from_le_bytes(b[0x10..0x18].try_into().expect("8 bytes")),
            selector: u32::from_le_bytes(b[0x18..0x1c].try_into().expect("4 bytes")),
            image_size: u32::from_le_bytes(b[0x1c..0x20].try_into().expect("4 bytes")),
        })
    }
}
