//! Arbitrary files: the ELF reader, property tables and the disassembler never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(elf) = q7_loader::ElfFile::parse(data) {
        let _ = elf.property_table();
        for zeroes in [false, true] {
            let options = q7_host::commands::disasm::Options { zeroes };
            let _ = q7_host::commands::disasm::disassemble(
                &elf,
                "fuzz",
                &q7_isa::NCORE2GP,
                options,
                &mut std::io::sink(),
            );
        }
    }
});
