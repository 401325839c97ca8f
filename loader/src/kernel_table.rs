//! `.kernel_info_table` (PLATFORM.md "Host ↔ device formats"; "Device load, bind and dispatch"): 8-byte entries { big-endian key = spec << 8 |
//! opcode, little-endian function VA }; the device dispatcher scans them linearly by key.

/// One entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelEntry {
    /// spec << 8 | opcode.
    pub key: u32,
    /// Device address of the kernel's launcher.
    pub func: u32,
}

/// Entry size.
pub const ENTRY_SIZE: usize = 8;

/// The key of a custom op's kernel whose FunctionId is `id`: `id << 8 | 0x85`, the spec above
/// the custom-op opcode (PLATFORM.md "Dispatch keys"). The build driver writes it into
/// `q7build.json`; a dispatch looks it up in the table.
pub const fn dispatch_key(id: u32) -> u32 {
    id << 8 | crate::ucode_lib::CUSTOM_OP_OPCODE as u32
}

/// Why bytes are not a kernel table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(".kernel_info_table is {len} bytes, not a multiple of its 8-byte entries")]
pub struct TableError {
    /// Length.
    pub len: usize,
}

impl KernelEntry {
    /// The entry for `spec` and `opcode`.
    pub fn new(spec: u32, opcode: u8, func: u32) -> Self {
        KernelEntry {
            key: (spec << 8) | u32::from(opcode),
            func,
        }
    }

    /// The 8 entry bytes.
    pub fn encode(&self) -> [u8; ENTRY_SIZE] {
        let mut b = [0u8; ENTRY_SIZE];
        b[..4].copy_from_slice(&self.key.to_be_bytes());
        b[4..].copy_from_slice(&self.func.to_le_bytes());
        b
    }
}

/// Decodes a whole table.
pub fn decode(bytes: &[u8]) -> Result<Vec<KernelEntry>, TableError> {
    if !bytes.len().is_multiple_of(ENTRY_SIZE) {
        return Err(TableError { len: bytes.len() });
    }
    Ok(bytes
        .chunks_exact(ENTRY_SIZE)
        .map(|e| KernelEntry {
            key: u32::from_be_bytes([e[0], e[1], e[2], e[3]]),
            func: u32::from_le_bytes([e[4], e[5], e[6], e[7]]),
        })
        .collect())
}

/// The dispatcher's linear scan: the first entry with `key`. Entries whose key is 0 are empty
/// (a table the start symbol has not filled yet; PLATFORM.md "Kernel table") and never match.
pub fn lookup(table: &[KernelEntry], key: u32) -> Option<&KernelEntry> {
    table.iter().find(|e| e.key != 0 && e.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_entries_never_match_not_even_key_0() {
        let t =
            decode(&[[0u8; 8], KernelEntry::new(1, 0x85, 0x8400_0040).encode()].concat()).unwrap();
        assert_eq!(lookup(&t, 0), None);
        assert_eq!(lookup(&t, 0x185).map(|e| e.func), Some(0x8400_0040));
    }
}
