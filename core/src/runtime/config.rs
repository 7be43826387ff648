//! What the program chose: OP2's run-time options (`OP_PART_SIZE=...` on the
//! command line, `OP_AUTO_SOA` in the environment, ...) as one value the
//! [`Runtime`](super::Runtime) decides by. A front end owns where options
//! live (OP2 keeps them in exported C variables that programs may write) and
//! hands the runtime their current values.

/// The options the runtime's decisions depend on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// OP2's `OP_diags`: 0 quiet; above 0 plans are checked and partition
    /// quality reported; above 1 plans are described; above 2 every new loop.
    pub diags: i32,
    /// `OP_PART_SIZE`: block size of every plan (0: the runtime's rule).
    pub part_size: i32,
    /// `OP_BLOCK_SIZE` (OP2's `OP_block_size`, 64 unless set): the
    /// work-group size of device loops written at run time, when the
    /// device's own options do not set one.
    pub block_size: i32,
    /// `OP_CACHE_LINE_SIZE`, in bytes (plans' transfer estimates).
    pub cache_line_size: i32,
    /// `OP_PARTIAL_EXCHANGE`: refresh only the halo rows a loop's map reaches.
    pub partial_exchange: bool,
    /// Combine global reductions across processes (OP2's
    /// `op_disable_mpi_reductions` switches it off).
    pub mpi_reductions: bool,
    /// `OP_AUTO_SOA`: device copies of dats with several components are
    /// transposed (structure of arrays).
    pub auto_soa: bool,
    /// `OP_hybrid_gpu`: loops of generated code may run on the device, so
    /// their plans are uploaded.
    pub hybrid_gpu: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            diags: 0,
            part_size: 0,
            block_size: 64,
            cache_line_size: 128,
            partial_exchange: false,
            mpi_reductions: true,
            auto_soa: false,
            hybrid_gpu: false,
        }
    }
}

/// One of OP2's `OP_*` command-line options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Opt {
    BlockSize(i32),
    PartSize(i32),
    CacheLineSize(i32),
    TestFrequency(i32),
    CudaReductionsMib(i32),
    /// `OP_MAPS_BASE_INDEX=0|1`.
    MapsBase(i32),
    /// `OP_MAPS_BASE_INDEX` with another value (refused).
    MapsBaseRefused(i32),
    HybridBalance(f64),
    GpuDirect,
    AutoSoa,
    PartialExchange,
    NoRealloc,
}

fn int_after(a: &str, key: &str) -> Option<i32> {
    let i = a.find(key)? + key.len();
    let digits: String = a[i..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

impl Opt {
    /// Recognise an option the way OP2 does: the key anywhere in the string.
    pub fn parse(a: &str) -> Option<Opt> {
        type IntOpt = (&'static str, fn(i32) -> Opt);
        let ints: [IntOpt; 5] = [
            ("OP_BLOCK_SIZE=", Opt::BlockSize),
            ("OP_PART_SIZE=", Opt::PartSize),
            ("OP_CACHE_LINE_SIZE=", Opt::CacheLineSize),
            ("OP_TEST_FREQ=", Opt::TestFrequency),
            ("OP_CUDA_REDUCTIONS_MIB=", Opt::CudaReductionsMib),
        ];
        for (key, opt) in ints {
            if let Some(v) = int_after(a, key) {
                return Some(opt(v));
            }
        }
        if let Some(v) = int_after(a, "OP_MAPS_BASE_INDEX=") {
            return Some(if v == 0 || v == 1 {
                Opt::MapsBase(v)
            } else {
                Opt::MapsBaseRefused(v)
            });
        }
        if let Some(i) = a.find("OP_HYBRID_BALANCE=") {
            if let Ok(v) = a[i + 18..].trim().parse::<f64>() {
                return Some(Opt::HybridBalance(v));
            }
        }
        [
            ("-gpudirect", Opt::GpuDirect),
            ("OP_AUTO_SOA", Opt::AutoSoa),
            ("OP_PARTIAL_EXCHANGE", Opt::PartialExchange),
            ("OP_NO_REALLOC", Opt::NoRealloc),
        ]
        .into_iter()
        .find(|(key, _)| a.contains(key))
        .map(|(_, o)| o)
    }

    /// The line OP2 prints when it applies the option (`maps_base`: the
    /// base index in force, named when a value is refused).
    pub fn message(&self, maps_base: i32) -> String {
        match *self {
            Opt::BlockSize(v) => format!("\n OP_block_size = {v} \n"),
            Opt::PartSize(v) => format!("\n OP_part_size = {v} \n"),
            Opt::CacheLineSize(v) => format!("\n OP_cache_line_size  = {v} \n"),
            Opt::TestFrequency(v) => format!("\n OP_mpi_test_frequency  = {v} \n"),
            Opt::CudaReductionsMib(v) => format!("\n OP_cuda_reductions_mib  = {v} \n"),
            Opt::MapsBase(v) => format!("\n OP_maps_base_index = {v} (overriding the default)\n"),
            Opt::MapsBaseRefused(v) => format!(
                "\n OP_MAPS_BASE_INDEX = {v} is not supported (only 0 or 1); keeping {maps_base}\n"
            ),
            Opt::HybridBalance(v) => format!("\n OP_hybrid_balance  = {v} \n"),
            Opt::GpuDirect => "\n Enabling GPU Direct\n".into(),
            Opt::AutoSoa => "\n Enabling Automatic AoS->SoA Conversion\n".into(),
            Opt::PartialExchange => "\n Enabling partial MPI halo exchanges\n".into(),
            Opt::NoRealloc => "\n Disable user memory reallocation/internal copy\n".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_found_anywhere_in_the_string() {
        assert_eq!(Opt::parse("OP_PART_SIZE=128"), Some(Opt::PartSize(128)));
        assert_eq!(Opt::parse("--OP_BLOCK_SIZE=-3x"), Some(Opt::BlockSize(-3)));
        assert_eq!(Opt::parse("OP_MAPS_BASE_INDEX=1"), Some(Opt::MapsBase(1)));
        assert_eq!(
            Opt::parse("OP_MAPS_BASE_INDEX=2"),
            Some(Opt::MapsBaseRefused(2))
        );
        assert_eq!(
            Opt::parse("OP_HYBRID_BALANCE=0.5"),
            Some(Opt::HybridBalance(0.5))
        );
        assert_eq!(Opt::parse("x-gpudirect"), Some(Opt::GpuDirect));
        assert_eq!(Opt::parse("OP_AUTO_SOA"), Some(Opt::AutoSoa));
        assert_eq!(Opt::parse("OP_PART_SIZE=abc"), None);
        assert_eq!(Opt::parse("airfoil"), None);
    }

    #[test]
    fn messages_are_op2s() {
        assert_eq!(Opt::PartSize(64).message(0), "\n OP_part_size = 64 \n");
        assert_eq!(
            Opt::MapsBaseRefused(5).message(1),
            "\n OP_MAPS_BASE_INDEX = 5 is not supported (only 0 or 1); keeping 1\n"
        );
    }
}
