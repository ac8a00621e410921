//! A duration as people read it, written one way everywhere sayso shows one: "250 ms", "2 s",
//! "1.5 s" ([`spaced`], the retry countdowns of SPEC §6); the same without the space
//! ([`compact`], "within 2s" in MCP timeout errors); and a running clock, "3s", "1m 05s"
//! ([`clock`], the TUI's status bar).
//!
//! Under a second a duration is whole milliseconds; from a second on, seconds, with one decimal
//! unless it is within 0.05 s of a whole number. Not here: parsing durations (config), or
//! fixed-unit messages that quote a configured number of seconds or milliseconds as given.

use std::time::Duration;

/// "250 ms", "2 s", "1.5 s".
pub fn spaced(d: Duration) -> String {
    with_unit(d, " ")
}

/// "250ms", "2s", "1.5s".
pub fn compact(d: Duration) -> String {
    with_unit(d, "")
}

fn with_unit(d: Duration, sep: &str) -> String {
    if d.as_millis() < 1000 {
        return format!("{}{sep}ms", d.as_millis());
    }
    let s = d.as_secs_f64();
    if (s - s.round()).abs() < 0.05 {
        format!("{}{sep}s", s.round())
    } else {
        format!("{s:.1}{sep}s")
    }
}

/// "3s", "1m 05s": whole seconds of a running clock.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m {:02}s", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        let ms = Duration::from_millis;
        // (duration, spaced, compact, clock)
        let rows = [
            (ms(0), "0 ms", "0ms", "0s"),
            (ms(250), "250 ms", "250ms", "0s"),
            (ms(999), "999 ms", "999ms", "0s"),
            (ms(1000), "1 s", "1s", "1s"),
            (ms(1500), "1.5 s", "1.5s", "1s"),
            (ms(2000), "2 s", "2s", "2s"),
            (ms(2030), "2 s", "2s", "2s"),
            (ms(2960), "3 s", "3s", "2s"),
            (ms(59_900), "59.9 s", "59.9s", "59s"),
            (ms(65_000), "65 s", "65s", "1m 05s"),
            (ms(3_600_000), "3600 s", "3600s", "60m 00s"),
        ];
        for (d, s, c, k) in rows {
            assert_eq!(spaced(d), s, "{d:?}");
            assert_eq!(compact(d), c, "{d:?}");
            assert_eq!(clock(d), k, "{d:?}");
        }
    }
}
