//! The constants of the SDK's math library (`examples/sdk/rt/math`), computed here in exact
//! integer arithmetic and rendered into `examples/sdk/rt/math/tables.h`: every table entry is
//! the stated real number rounded to nearest (or, for the bits of 2/π, truncated) in the stated
//! units, from series evaluated with [`WORK`] bits — ln of a rational through atanh, e^x by its
//! Taylor series, π by Machin's formula. The derivations are restated in the library's
//! README.md, "Tables".

use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::fmt::Write as _;

/// Bits of the fixed-point working precision (far beyond any table's 64 or 128).
pub const WORK: u32 = 400;

/// Words of 2/π the library holds (enough for the largest double exponent, README.md
/// "Trigonometric functions").
pub const TWO_OVER_PI_WORDS: usize = 40;

/// A real number as an integer `v` meaning `v / 2^WORK`.
type Fixed = BigInt;

fn one() -> Fixed {
    BigInt::one() << WORK
}

/// `v` rounded to nearest (halves up) at `2^-units`: the integer `round(v / 2^WORK * 2^units)`.
fn round_to(v: &Fixed, units: i32) -> BigInt {
    let shift = WORK as i32 - units;
    assert!(shift > 0);
    let half = BigInt::one() << (shift - 1) as u32;
    (v + half) >> shift as u32
}

/// atanh(n / d) for |n / d| < 1.
fn atanh_ratio(n: i64, d: i64) -> Fixed {
    let (n, d) = (BigInt::from(n), BigInt::from(d));
    let (n2, d2) = (&n * &n, &d * &d);
    let mut power = (one() * &n) / &d; // (n/d)^(2k+1)
    let mut sum = Fixed::zero();
    let mut k = 0u32;
    loop {
        let term = &power / (2 * k + 1);
        if term.is_zero() {
            return sum;
        }
        sum += term;
        power = power * &n2 / &d2;
        k += 1;
    }
}

/// ln(a / b) for positive integers: 2 atanh((a - b) / (a + b)).
fn ln_ratio(a: i64, b: i64) -> Fixed {
    atanh_ratio(a - b, a + b) * 2
}

fn ln2() -> Fixed {
    ln_ratio(2, 1)
}

fn ln10() -> Fixed {
    // 10 = 8 * (10 / 8)
    ln2() * 3 + ln_ratio(10, 8)
}

/// a / b for fixed-point values.
fn div(a: &Fixed, b: &Fixed) -> Fixed {
    (a << WORK) / b
}

/// a * b for fixed-point values.
fn mul(a: &Fixed, b: &Fixed) -> Fixed {
    (a * b) >> WORK
}

/// e^x for |x| <= 1, by its Taylor series.
fn exp(x: &Fixed) -> Fixed {
    let mut term = one();
    let mut sum = one();
    let mut k = 1u32;
    loop {
        term = mul(&term, x) / k;
        if term.is_zero() {
            return sum;
        }
        sum += &term;
        k += 1;
    }
}

/// atan(1 / n) at `bits` bits, by its Taylor series.
fn atan_inv(n: i64, bits: u32) -> BigInt {
    let n2 = BigInt::from(n * n);
    let mut power = (BigInt::one() << bits) / n; // 1 / n^(2k+1)
    let mut sum = BigInt::zero();
    let mut k = 0u32;
    loop {
        let term = &power / (2 * k + 1);
        if term.is_zero() {
            return sum;
        }
        if k.is_multiple_of(2) {
            sum += term;
        } else {
            sum -= term;
        }
        power /= &n2;
        k += 1;
    }
}

/// π at `bits` bits: 16 atan(1/5) - 4 atan(1/239) (Machin).
fn pi_bits(bits: u32) -> BigInt {
    atan_inv(5, bits) * 16 - atan_inv(239, bits) * 4
}

fn pi() -> Fixed {
    pi_bits(WORK)
}

/// 1 / n! as a fixed-point value.
fn inv_factorial(n: u32) -> Fixed {
    let f: BigInt = (1..=n).map(BigInt::from).product();
    one() / f
}

/// The unsigned `u64` of a non-negative integer that fits.
fn u64_of(v: &BigInt) -> u64 {
    assert!(!v.is_negative() && v.bits() <= 64, "{v} does not fit a u64");
    let d = v.to_u64_digits().1;
    d.first().copied().unwrap_or(0)
}

fn i64_of(v: &BigInt) -> i64 {
    let m = u64_of(&v.abs());
    assert!(m <= i64::MAX as u64);
    if v.is_negative() {
        -(m as i64)
    } else {
        m as i64
    }
}

/// A positive constant as the library's `Wide` {neg, e, m}: m * 2^(e - 63), bit 63 of m set.
fn wide(v: &Fixed) -> (i32, u64) {
    assert!(v.is_positive());
    // e = floor(log2 v)
    let e = v.bits() as i32 - 1 - WORK as i32;
    let m = round_to(v, 63 - e);
    let (e, m) = if m.bits() > 64 {
        (e + 1, round_to(v, 62 - e))
    } else {
        (e, m)
    };
    (e, u64_of(&m))
}

/// A positive constant normalised to `bits` bits: (e, m) with v = m * 2^(e - bits + 1), the
/// top bit of m set.
fn wide_bits(v: &Fixed, bits: i32) -> (i32, BigInt) {
    assert!(v.is_positive());
    let e = v.bits() as i32 - 1 - WORK as i32;
    let m = round_to(v, bits - 1 - e);
    if m.bits() as i32 > bits {
        (e + 1, round_to(v, bits - 2 - e))
    } else {
        (e, m)
    }
}

/// A 128-bit two's complement literal `{hi, lo}` of an integer in [-2^127, 2^128).
fn u128_literal(v: &BigInt) -> String {
    let m = (BigInt::one() << 128u32) - 1;
    let w = v & &m; // two's complement for a negative v
    let lo = &w & BigInt::from(u64::MAX);
    let hi: BigInt = &w >> 64u32;
    format!("{{0x{:016x}ull, 0x{:016x}ull}}", u64_of(&hi), u64_of(&lo))
}

/// The log-table index range: c = 1 + k/128 for k in LOG_K.
const LOG_K: std::ops::RangeInclusive<i64> = -32..=64;

/// 2^10 / c rounded, for each log-table point c = 1 + k/128 (= 128 / (128 + k)).
fn log_inv(k: i64) -> i64 {
    // round(1024 * 128 / (128 + k))
    let (n, d) = (1024 * 128, 128 + k);
    (2 * n + d) / (2 * d)
}

/// The text of `examples/sdk/rt/math/tables.h`.
pub fn render() -> String {
    let mut out = String::new();
    let mut emit = |s: &str| out.push_str(s);
    emit(
        "/* tables.h - GENERATED, do not edit: the math library's constants, computed in exact \
         integer\n * arithmetic by tests/tests/all/math_support/tables.rs, which fails when this copy \
         differs.\n * Regenerate it with `Q7EMU_UPDATE_GENERATED=1 cargo test -p q7-tests --test \
         all sdk_math::` (README.md\n * in this directory, \"Tables\"). Units: an entry \"in 2^-n\" is \
         the real number times 2^n, rounded\n * to nearest. */\n#ifndef Q7_MATH_TABLES_H\n\
         #define Q7_MATH_TABLES_H\n\n#include \"fixed.h\"\n\nnamespace q7m {\n\n",
    );
    let ln2 = ln2();
    let log2e = div(&one(), &ln2);
    let log10e = div(&one(), &ln10());
    let pi = pi();

    // exp2: 2^(j/64) in 2^-31, and ln2^k / k! in 2^-32.
    let table: Vec<String> = (0..64)
        .map(|j| {
            let v = exp(&(&ln2 * j / 64));
            format!("0x{:08x}u", u64_of(&round_to(&v, 31)))
        })
        .collect();
    emit(&array(
        "2^(j/64) in 2^-31, j = 0..63 (expf.cpp)",
        "u32",
        "EXP2F_TABLE",
        &table,
    ));
    let mut power = one();
    let poly: Vec<String> = (1..=4u32)
        .map(|k| {
            power = mul(&power, &ln2);
            let v = mul(&power, &inv_factorial(k));
            format!("0x{:08x}u", u64_of(&round_to(&v, 32)))
        })
        .collect();
    emit(&array(
        "ln(2)^k / k! in 2^-32, k = 1..4: 2^g - 1 for 0 <= g < 1/64 (expf.cpp)",
        "u32",
        "EXP2F_POLY",
        &poly,
    ));
    emit(&scalar(
        "log2(e) in 2^-62 (expf.cpp)",
        "u64",
        "LOG2E_62",
        &format!("0x{:016x}ull", u64_of(&round_to(&log2e, 62))),
    ));

    let table: Vec<String> = (0..64)
        .map(|j| {
            let v = exp(&(&ln2 * j / 64));
            format!("0x{:016x}ull", u64_of(&round_to(&v, 63)))
        })
        .collect();
    emit(&array(
        "2^(j/64) in 2^-63, j = 0..63 (exp.cpp)",
        "u64",
        "EXP2_TABLE64",
        &table,
    ));
    let mut power = one();
    let poly: Vec<String> = (1..=7u32)
        .map(|k| {
            power = mul(&power, &ln2);
            let v = mul(&power, &inv_factorial(k));
            format!("0x{:016x}ull", u64_of(&round_to(&v, 64)))
        })
        .collect();
    emit(&array(
        "ln(2)^k / k! in 2^-64, k = 1..7: 2^g - 1 for 0 <= g < 1/64 (exp.cpp)",
        "u64",
        "EXP2_POLY64",
        &poly,
    ));

    // log: 2^10 / c, -ln(inv / 2^10) in 2^-55 and -log2(inv / 2^10) in 2^-55.
    let inv: Vec<i64> = LOG_K.map(log_inv).collect();
    emit(&array(
        "2^10 / c rounded to an integer, for c = 1 + k/128, k = -32..64 (logf.cpp, powf.cpp)",
        "u32",
        "LOGF_INV",
        &inv.iter().map(|v| format!("{v}u")).collect::<Vec<_>>(),
    ));
    let ln_c: Vec<Fixed> = inv.iter().map(|&i| ln_ratio(1024, i)).collect();
    emit(&array(
        "ln(2^10 / LOGF_INV[i]) in 2^-55 (logf.cpp)",
        "i64",
        "LOGF_T55",
        &ln_c
            .iter()
            .map(|v| format!("{}ll", i64_of(&round_to(v, 55))))
            .collect::<Vec<_>>(),
    ));
    emit(&array(
        "log2(2^10 / LOGF_INV[i]) in 2^-55 (powf.cpp)",
        "i64",
        "LOG2F_T55",
        &ln_c
            .iter()
            .map(|v| format!("{}ll", i64_of(&round_to(&mul(v, &log2e), 55))))
            .collect::<Vec<_>>(),
    ));
    emit(&array(
        "1/n in 2^-32, n = 2..5: ln(1 + r) = r (1 - r/2 + r^2/3 - ...) (logf.cpp)",
        "u32",
        "LOGF_Q",
        &(2..=5)
            .map(|n| format!("0x{:08x}u", u64_of(&round_to(&(one() / n), 32))))
            .collect::<Vec<_>>(),
    ));
    emit(&array(
        "1/n in 2^-64, n = 2..11 (powf.cpp, log.cpp); 1/2 is 2^63",
        "u64",
        "LOG_Q64",
        &(2..=11)
            .map(|n| format!("0x{:016x}ull", u64_of(&round_to(&(one() / n), 64))))
            .collect::<Vec<_>>(),
    ));
    emit(&scalar(
        "ln(2) in 2^-55 (logf.cpp)",
        "u64",
        "LN2_55",
        &format!("0x{:016x}ull", u64_of(&round_to(&ln2, 55))),
    ));
    emit(&scalar(
        "ln(2) in 2^-116 (log.cpp)",
        "U128",
        "LN2_116",
        &u128_literal(&round_to(&ln2, 116)),
    ));
    emit(&array(
        "ln(2^10 / LOGF_INV[i]) in 2^-116, two's complement (log.cpp)",
        "U128",
        "LOG_T116",
        &ln_c
            .iter()
            .map(|v| u128_literal(&round_to(v, 116)))
            .collect::<Vec<_>>(),
    ));
    for (name, what, v) in [
        ("LOG2E_128", "log2(e)", &log2e),
        ("LOG10E_128", "log10(e)", &log10e),
    ] {
        let (e, m) = wide_bits(v, 128);
        emit(&scalar(
            &format!("{what} as a Wide128: m * 2^(e - 127) (exp.cpp, log.cpp, pow.cpp)"),
            "Wide128",
            name,
            &format!("{{false, {e}, {}}}", u128_literal(&m)),
        ));
    }
    for (name, what, v) in [
        ("LOG2E_W", "log2(e)", &log2e),
        ("LOG10E_W", "log10(e)", &log10e),
        ("PIO2_W", "pi/2", &(&pi / 2)),
    ] {
        let (e, m) = wide(v);
        emit(&scalar(
            &format!("{what} as a Wide: m * 2^(e - 63)"),
            "Wide",
            name,
            &format!("{{false, {e}, 0x{m:016x}ull}}"),
        ));
    }

    // Trigonometric: the bits of 2/pi, and 1/n! for the sine and cosine series.
    let bits = 32 * TWO_OVER_PI_WORDS as u32 + 64;
    let two_over_pi = (BigInt::from(2) << (2 * bits)) / pi_bits(bits);
    let words: Vec<String> = (0..TWO_OVER_PI_WORDS)
        .map(|i| {
            let w = (&two_over_pi >> (bits - 32 * (i as u32 + 1))) & BigInt::from(0xffff_ffffu32);
            format!("0x{:08x}u", u64_of(&w))
        })
        .collect();
    emit(&array(
        "the bits of 2/pi after the binary point, 32 to a word, truncated (trigf.cpp)",
        "u32",
        "TWO_OVER_PI",
        &words,
    ));
    let series = |first: u32| -> Vec<String> {
        (0..5)
            .map(|i| {
                let v = inv_factorial(first + 2 * i);
                format!("0x{:08x}u", u64_of(&round_to(&v, 32)))
            })
            .collect()
    };
    emit(&array(
        "1/n! in 2^-32, n = 3, 5, .., 11: sin r = r (1 - r^2/3! + r^4/5! - ...) (trigf.cpp)",
        "u32",
        "SINF_C",
        &series(3),
    ));
    emit(&array(
        "1/n! in 2^-32, n = 2, 4, .., 10: cos r = 1 - r^2/2! + r^4/4! - ... (trigf.cpp)",
        "u32",
        "COSF_C",
        &series(2),
    ));

    // atan(j/64) by Euler's series: atan x = x/(1+x^2) sum_n prod_{k<=n} 2k/(2k+1) y^n,
    // y = x^2/(1+x^2) <= 1/2, for x = j/64.
    let atan_t: Vec<String> = (0..=64i64)
        .map(|j| {
            let (p, q) = (BigInt::from(j), BigInt::from(64));
            let n2 = &p * &p + &q * &q;
            let mut term = (one() * &p * &q) / &n2;
            let mut sum = Fixed::zero();
            let mut k = 0u32;
            while !term.is_zero() {
                sum += &term;
                k += 1;
                term = term * (2 * k) * &p * &p / ((2 * k + 1) * &n2);
            }
            format!("0x{:016x}ull", u64_of(&round_to(&sum, 64)))
        })
        .collect();
    emit(&array(
        "atan(j/64) in 2^-64, j = 0..64 (atan.cpp)",
        "u64",
        "ATAN_T64",
        &atan_t,
    ));
    emit(&array(
        "1/n in 2^-64, n = 3, 5, .., 13: atan w = w (1 - w^2/3 + w^4/5 - ...) (atan.cpp)",
        "u64",
        "ATAN_Q64",
        &(0..6)
            .map(|i| {
                format!(
                    "0x{:016x}ull",
                    u64_of(&round_to(&(one() / (3 + 2 * i)), 64))
                )
            })
            .collect::<Vec<_>>(),
    ));
    let series64 = |first: u32| -> Vec<String> {
        (0..9)
            .map(|i| {
                let v = inv_factorial(first + 2 * i);
                format!("0x{:016x}ull", u64_of(&round_to(&v, 64)))
            })
            .collect()
    };
    emit(&array(
        "1/n! in 2^-64, n = 3, 5, .., 19: the sine series (trig.cpp)",
        "u64",
        "SIN_C64",
        &series64(3),
    ));
    emit(&array(
        "1/n! in 2^-64, n = 2, 4, .., 18: the cosine series (trig.cpp); 1/2! is 2^63",
        "u64",
        "COS_C64",
        &series64(2),
    ));

    emit("} // namespace q7m\n\n#endif\n");
    out
}

/// A `static const` array declaration, four entries to a line (two when they are long).
fn array(what: &str, ty: &str, name: &str, values: &[String]) -> String {
    let mut s = format!(
        "/* {what} */\nstatic const {ty} {name}[{}] = {{\n",
        values.len()
    );
    let per_line = if values.iter().any(|v| v.len() > 24) {
        2
    } else {
        4
    };
    for chunk in values.chunks(per_line) {
        writeln!(s, "\t{},", chunk.join(", ")).unwrap();
    }
    s.push_str("};\n\n");
    s
}

/// A `static const` scalar declaration.
fn scalar(what: &str, ty: &str, name: &str, value: &str) -> String {
    format!("/* {what} */\nstatic const {ty} {name} = {value};\n\n")
}
