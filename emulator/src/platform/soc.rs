//! The 16-entry SoC ↔ XT window table (PLATFORM.md): entry 2·prid + 9 maps a 64 KiB SoC
//! aperture onto core `prid`'s DATARAM.

use super::map;

/// Why a SoC address does not translate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SocError {
    /// Outside every aperture of the table.
    #[error("SoC address {addr:#x} is outside the SoC<->XT window table")]
    OutsideTable {
        /// The SoC address.
        addr: u64,
    },
    /// Inside the table, but the entry maps no core.
    #[error("SoC address {addr:#x} falls in window table entry {index}, which maps no core")]
    UnmappedEntry {
        /// The SoC address.
        addr: u64,
        /// The entry.
        index: u32,
    },
}

/// SoC base address of core `prid`'s aperture.
pub fn aperture_of(prid: u32) -> u64 {
    map::SOC_APERTURE_BASE + u64::from(map::soc_window_index(prid)) * map::SOC_APERTURE_SIZE
}

/// Translates a SoC address to (core, XT address), as `translate_soc_to_xt_address` does.
pub fn translate_soc_to_xt(addr: u64, cores: u32) -> Result<(u32, u32), SocError> {
    let rel = addr
        .checked_sub(map::SOC_APERTURE_BASE)
        .filter(|r| *r < u64::from(map::SOC_WINDOWS) * map::SOC_APERTURE_SIZE)
        .ok_or(SocError::OutsideTable { addr })?;
    let index = (rel / map::SOC_APERTURE_SIZE) as u32;
    let off = (rel % map::SOC_APERTURE_SIZE) as u32;
    (0..cores)
        .find(|&p| map::soc_window_index(p) == index)
        .map(|p| (p, map::DATARAM.0 + off))
        .ok_or(SocError::UnmappedEntry { addr, index })
}
