//! The XEA2 exception vectors (isa/ISA.md, ARCHITECTURE.md "Exceptions and windows"): each
//! one's offset from VECBASE and what it is taken for, in one place, for the core that takes
//! them, the boot ROM that fills them and the traces that show them.

use crate::state::ps;

/// An exception vector: where, relative to VECBASE, the core goes to handle what.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vector {
    /// WindowOverflow4: spill a 4-register frame.
    WindowOverflow4,
    /// WindowUnderflow4: restore a 4-register frame.
    WindowUnderflow4,
    /// WindowOverflow8.
    WindowOverflow8,
    /// WindowUnderflow8.
    WindowUnderflow8,
    /// WindowOverflow12.
    WindowOverflow12,
    /// WindowUnderflow12.
    WindowUnderflow12,
    /// KernelExceptionVector: a general exception with PS.UM = 0.
    Kernel,
    /// UserExceptionVector: a general exception with PS.UM = 1.
    User,
    /// DoubleExceptionVector: a general exception with PS.EXCM = 1.
    Double,
}

/// Whether a window vector spills or restores a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowTrap {
    /// A live frame is in the way of the registers an instruction names: spill it.
    Overflow,
    /// A return to a frame that was spilled: restore it.
    Underflow,
}

impl Vector {
    /// Every vector, in offset order.
    pub const ALL: [Vector; 9] = [
        Vector::WindowOverflow4,
        Vector::WindowUnderflow4,
        Vector::WindowOverflow8,
        Vector::WindowUnderflow8,
        Vector::WindowOverflow12,
        Vector::WindowUnderflow12,
        Vector::Kernel,
        Vector::User,
        Vector::Double,
    ];

    /// The vector's architectural name.
    pub const fn name(self) -> &'static str {
        match self {
            Vector::WindowOverflow4 => "WindowOverflow4",
            Vector::WindowUnderflow4 => "WindowUnderflow4",
            Vector::WindowOverflow8 => "WindowOverflow8",
            Vector::WindowUnderflow8 => "WindowUnderflow8",
            Vector::WindowOverflow12 => "WindowOverflow12",
            Vector::WindowUnderflow12 => "WindowUnderflow12",
            Vector::Kernel => "KernelExceptionVector",
            Vector::User => "UserExceptionVector",
            Vector::Double => "DoubleExceptionVector",
        }
    }

    /// Offset from VECBASE.
    pub const fn offset(self) -> u32 {
        match self {
            Vector::WindowOverflow4 => 0x000,
            Vector::WindowUnderflow4 => 0x040,
            Vector::WindowOverflow8 => 0x080,
            Vector::WindowUnderflow8 => 0x0c0,
            Vector::WindowOverflow12 => 0x100,
            Vector::WindowUnderflow12 => 0x140,
            Vector::Kernel => 0x300,
            Vector::User => 0x340,
            Vector::Double => 0x3c0,
        }
    }

    /// For a window vector: whether it spills or restores, and the frame size in registers
    /// (4, 8 or 12). `None` for the general-exception vectors.
    pub const fn window(self) -> Option<(WindowTrap, u32)> {
        match self {
            Vector::WindowOverflow4 => Some((WindowTrap::Overflow, 4)),
            Vector::WindowUnderflow4 => Some((WindowTrap::Underflow, 4)),
            Vector::WindowOverflow8 => Some((WindowTrap::Overflow, 8)),
            Vector::WindowUnderflow8 => Some((WindowTrap::Underflow, 8)),
            Vector::WindowOverflow12 => Some((WindowTrap::Overflow, 12)),
            Vector::WindowUnderflow12 => Some((WindowTrap::Underflow, 12)),
            Vector::Kernel | Vector::User | Vector::Double => None,
        }
    }

    /// The window vector that spills (`Overflow`) or restores (`Underflow`) a frame of
    /// `frame` registers (4, 8 or 12; anything else is 12).
    pub const fn window_trap(trap: WindowTrap, frame: u32) -> Vector {
        match (trap, frame) {
            (WindowTrap::Overflow, 4) => Vector::WindowOverflow4,
            (WindowTrap::Overflow, 8) => Vector::WindowOverflow8,
            (WindowTrap::Overflow, _) => Vector::WindowOverflow12,
            (WindowTrap::Underflow, 4) => Vector::WindowUnderflow4,
            (WindowTrap::Underflow, 8) => Vector::WindowUnderflow8,
            (WindowTrap::Underflow, _) => Vector::WindowUnderflow12,
        }
    }

    /// The vector of a general exception raised with PS = `ps`.
    pub const fn general(ps: u32) -> Vector {
        if ps & ps::EXCM != 0 {
            Vector::Double
        } else if ps & ps::UM != 0 {
            Vector::User
        } else {
            Vector::Kernel
        }
    }
}

impl WindowTrap {
    /// "overflow" or "underflow", as fault reports name it.
    pub const fn name(self) -> &'static str {
        match self {
            WindowTrap::Overflow => "overflow",
            WindowTrap::Underflow => "underflow",
        }
    }
}
