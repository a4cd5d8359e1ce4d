//! How soon a crashed worker is replaced. A crash now and then (one bad input) is replaced at
//! once; crashes in a row with no task completing in between (a module that traps on every
//! task, a poisoned input replayed) back off exponentially, so a crash loop costs a few
//! spawns per second instead of a spinning core.

/// First delay of a crash loop, in ms (the second crash in a row).
pub(crate) const FIRST_DELAY_MS: u32 = 10;
/// Longest delay between replacements.
pub(crate) const MAX_DELAY_MS: u32 = 2_000;

/// Delay before replacing a worker after the `streak`-th crash in a row (1 = the first).
pub(crate) fn delay_ms(streak: u32) -> u32 {
    if streak <= 1 {
        return 0;
    }
    let doublings = (streak - 2).min(16);
    FIRST_DELAY_MS.saturating_mul(1 << doublings).min(MAX_DELAY_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_crash_is_replaced_at_once() {
        assert_eq!(delay_ms(0), 0);
        assert_eq!(delay_ms(1), 0);
    }

    #[test]
    fn a_crash_loop_backs_off_to_the_cap() {
        let delays: Vec<u32> = (2..=11).map(delay_ms).collect();
        assert_eq!(delays, [10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000]);
        assert_eq!(delay_ms(u32::MAX), MAX_DELAY_MS);
    }
}
