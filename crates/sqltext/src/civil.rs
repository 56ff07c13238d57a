//! Civil-date arithmetic: days since 1970-01-01 to and from a proleptic
//! Gregorian (year, month, day), Howard Hinnant's algorithms, no calendar
//! library.
//!
//! Why here: the SQL front (NOW(), CURDATE() without a table) and the SQLite
//! engine (the date functions, rounding a DATETIME's fraction into the next
//! day, information_schema times) each carried a copy of `civil_from_days`;
//! the copies agreed, and now there is one.

/// (year, month, day) to days since 1970-01-01.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// Days since 1970-01-01 to (year, month, day).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The number of days in month `m` (1 to 12) of year `y`.
pub fn days_in_month(y: i64, m: i64) -> i64 {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    days_from_civil(ny, nm, 1) - days_from_civil(y, m, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19782), (2024, 2, 29));
        assert_eq!(civil_from_days(-719528), (0, 1, 1));
        for z in [-800_000, -719_528, -1, 0, 1, 11_016, 19_782, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!((days_in_month(2024, 2), days_in_month(2023, 2), days_in_month(1900, 2), days_in_month(2000, 2)), (29, 28, 28, 29));
        assert_eq!((days_in_month(2024, 12), days_in_month(2024, 4)), (31, 30));
    }
}
