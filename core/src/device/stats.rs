//! What moved between host and device, counted where it moves, so that a
//! run can be checked against what the dats' host/device state predicts
//! (the GPU check compares these with the application: every dat placed on
//! the device once at declaration, a dat copied back only when the host
//! reads it while the device copy is newer, each plan uploaded once).
//!
//! `OP2_RS_DEVICE_STATS=1` (any value but `0` or empty) prints one line at
//! `op_exit` on the root process:
//!
//! ```text
//! op2-rs device transfers: dats_placed=6 dats_placed_bytes=... dat_uploads=0 ...
//! ```
//!
//! Every figure is `name=value`; bytes are host-side bytes (an SoA copy
//! counts the bytes it was transposed from), times are milliseconds.

use std::time::Duration;

/// A number of copies and the bytes they moved.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Moves {
    pub count: u64,
    pub bytes: u64,
}

impl Moves {
    /// One more copy of `bytes` bytes.
    pub fn add(&mut self, bytes: usize) {
        self.count += 1;
        self.bytes += bytes as u64;
    }
}

/// The transfers of one device's lifetime, by what moved.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct TransferStats {
    /// A dat's device copy made from its host copy (declaration, or the
    /// mesh moved).
    pub dats_placed: Moves,
    /// A stale device copy refreshed from the host (and `op_upload_dat`).
    pub dat_uploads: Moves,
    /// A stale host copy refreshed from the device (and `op_download_dat`).
    pub dat_downloads: Moves,
    /// Halo rows sent up after an exchange.
    pub halo_uploads: Moves,
    /// Owned rows of a device-fresh dat brought down for an exchange to
    /// send (one count per dat and exchange; MPI with device loops).
    pub halo_downloads: Moves,
    /// Maps' transposed device copies (and the row lists of halo gathers).
    pub maps: Moves,
    /// Execution plans' arrays (one count per plan).
    pub plans: Moves,
    /// Reduction and constant scratch moved to the device
    /// (`mvReductArraysToDevice`, `mvConstArraysToDevice`).
    pub scratch_up: Moves,
    /// ... and back (`mvReductArraysToHost`).
    pub scratch_down: Moves,
    /// Time spent uploading plans.
    pub plan_upload: Duration,
    /// Time spent transposing dats between AoS (host) and SoA (device).
    pub soa_transpose: Duration,
}

/// Milliseconds, to the microsecond.
fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

impl TransferStats {
    /// The one-line report (see the module documentation).
    pub fn line(&self) -> String {
        let moves = [
            ("dats_placed", self.dats_placed),
            ("dat_uploads", self.dat_uploads),
            ("dat_downloads", self.dat_downloads),
            ("halo_uploads", self.halo_uploads),
            ("halo_downloads", self.halo_downloads),
            ("maps", self.maps),
            ("plans", self.plans),
            ("scratch_up", self.scratch_up),
            ("scratch_down", self.scratch_down),
        ];
        let mut s = String::from("op2-rs device transfers:");
        for (name, m) in moves {
            s += &format!(" {name}={} {name}_bytes={}", m.count, m.bytes);
        }
        s += &format!(
            " plan_upload_ms={} soa_transpose_ms={}",
            ms(self.plan_upload),
            ms(self.soa_transpose)
        );
        s
    }

    /// Was the report asked for (`OP2_RS_DEVICE_STATS` set, not `0`)?
    pub fn wanted() -> bool {
        std::env::var_os("OP2_RS_DEVICE_STATS").is_some_and(|v| !v.is_empty() && v != "0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_every_figure() {
        let mut s = TransferStats::default();
        s.dats_placed.add(100);
        s.dats_placed.add(28);
        s.dat_downloads.add(64);
        s.plan_upload = Duration::from_micros(1500);
        let l = s.line();
        assert!(l.starts_with("op2-rs device transfers: dats_placed=2 dats_placed_bytes=128 "));
        assert!(l.contains(" dat_uploads=0 dat_uploads_bytes=0 "));
        assert!(l.contains(" dat_downloads=1 dat_downloads_bytes=64 "));
        assert!(
            l.ends_with(" plan_upload_ms=1.500 soa_transpose_ms=0.000"),
            "{l}"
        );
        assert_eq!(l.split(' ').filter(|w| w.contains('=')).count(), 20);
    }
}
