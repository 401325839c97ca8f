//! Numeric command-line values: one grammar for every numeric flag of every command —
//! decimal, or hexadecimal after `0x`/`0X` — and one message naming the value, the type's range
//! and the grammar when a value does not parse or does not fit.

/// A number of type `T` (`what` names its range in the message, e.g. "a 32-bit number").
fn parse<T: TryFrom<u64>>(s: &str, what: &str) -> Result<T, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    let wrong =
        |e: &dyn std::fmt::Display| format!("{s:?}: {e} (expected {what}, decimal or 0x-hex)");
    let n = parsed.map_err(|e| wrong(&e))?;
    T::try_from(n).map_err(|_| wrong(&"number too large to fit in target type"))
}

/// A 32-bit number.
pub fn parse_u32(s: &str) -> Result<u32, String> {
    parse(s, "a 32-bit number")
}

/// A 64-bit number.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    parse(s, "a 64-bit number")
}

/// Comma-separated 32-bit words.
pub fn parse_words(s: &str) -> Result<Vec<u32>, String> {
    s.split(',').map(|w| parse_u32(w.trim())).collect()
}

/// A count of host threads: at least 1 (0 is refused, not taken as 1).
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match parse::<usize>(s, "a thread count")? {
        0 => Err(format!("{s:?}: at least 1 host thread runs the cores")),
        n => Ok(n),
    }
}

/// A range `LO..HI` of numbers read by `number`, LO below HI.
fn range<T: PartialOrd>(s: &str, number: fn(&str) -> Result<T, String>) -> Result<(T, T), String> {
    let (lo, hi) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?}: expected a range LO..HI"))?;
    let (lo, hi) = (number(lo.trim())?, number(hi.trim())?);
    if lo >= hi {
        return Err(format!("{s:?}: the range is empty (LO must be below HI)"));
    }
    Ok((lo, hi))
}

/// An address range `LO..HI` of 32-bit numbers, LO below HI.
pub fn parse_range(s: &str) -> Result<(u32, u32), String> {
    range(s, parse_u32)
}

/// A cycle range `A..B` of 64-bit numbers, A below B.
pub fn parse_cycle_range(s: &str) -> Result<(u64, u64), String> {
    range(s, parse_u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_numeric_flag_takes_decimal_and_0x_hex() {
        assert_eq!(parse_u32("133"), Ok(133));
        assert_eq!(parse_u32("0x185"), Ok(0x185));
        assert_eq!(parse_u32("0XFFFFFFFF"), Ok(u32::MAX));
        assert_eq!(parse_u64("0x2540be400"), Ok(10_000_000_000));
        assert_eq!(parse_threads("0x2"), Ok(2));
        assert_eq!(parse_words("0x1000, 64"), Ok(vec![0x1000, 64]));
        assert_eq!(parse_range("0x1000..8192"), Ok((0x1000, 8192)));
        assert_eq!(
            parse_cycle_range("0..0x2540be400"),
            Ok((0, 10_000_000_000)),
            "cycles past 2^32"
        );
    }

    #[test]
    fn a_value_that_does_not_parse_or_fit_is_named_with_the_grammar() {
        assert_eq!(
            parse_u32("0x100000000").unwrap_err(),
            "\"0x100000000\": number too large to fit in target type \
             (expected a 32-bit number, decimal or 0x-hex)"
        );
        assert_eq!(
            parse_u64("ten").unwrap_err(),
            "\"ten\": invalid digit found in string (expected a 64-bit number, decimal or 0x-hex)"
        );
        assert_eq!(
            parse_threads("0").unwrap_err(),
            "\"0\": at least 1 host thread runs the cores"
        );
        assert_eq!(
            parse_range("16..16").unwrap_err(),
            "\"16..16\": the range is empty (LO must be below HI)"
        );
        assert_eq!(
            parse_range("16").unwrap_err(),
            "\"16\": expected a range LO..HI"
        );
        assert_eq!(
            parse_cycle_range("9..3").unwrap_err(),
            "\"9..3\": the range is empty (LO must be below HI)"
        );
        assert_eq!(
            parse_range("0..0x100000000").unwrap_err(),
            "\"0x100000000\": number too large to fit in target type \
             (expected a 32-bit number, decimal or 0x-hex)",
            "an address range is 32-bit"
        );
    }
}
