//! The row gather of MPI halo exchanges from device-resident dats, in both
//! dialects from one body: one work-item (thread) per byte of the packed
//! rows; row `rows[k]` of `src` (AoS rows of `eb` bytes, or, when
//! `scalar > 0`, SoA with components of `scalar` bytes `stride` rows
//! apart) becomes row `k` of `dst`. The caller guarantees every row number
//! is below the dat's rows and `dst` holds `n * eb` bytes; the global size
//! may exceed `n * eb` (work-items past it do nothing).

use crate::desc::Dialect;

/// The kernel's name.
pub const GATHER_ENTRY: &str = "op2rs_gather_rows";

/// The gather's source in `dialect`. Its parameters, in order: `src`,
/// `rows`, `dst` (device memory), then `n`, `eb`, `stride`, `scalar`
/// (`int`).
pub fn gather_text(dialect: Dialect) -> String {
    let (head, uchar, int, id) = match dialect {
        Dialect::OpenCl => (
            "__kernel void",
            "__global uchar",
            "__global const int",
            "get_global_id(0)",
        ),
        Dialect::Cuda => (
            "extern \"C\" __global__ void",
            "unsigned char",
            "const int",
            "(size_t)blockIdx.x * blockDim.x + threadIdx.x",
        ),
    };
    format!(
        "{head} {GATHER_ENTRY}(const {uchar} *src, {int} *rows, {uchar} *dst,
    const int n, const int eb, const int stride, const int scalar) {{
  const size_t i = {id};
  if (i >= (size_t)n * (size_t)eb) return;
  const size_t k = i / (size_t)eb, b = i % (size_t)eb;
  const size_t r = (size_t)rows[k];
  const size_t from = scalar > 0
      ? ((b / (size_t)scalar) * (size_t)stride + r) * (size_t)scalar + b % (size_t)scalar
      : r * (size_t)eb + b;
  dst[i] = src[from];
}}
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_body_two_dialects() {
        let cl = gather_text(Dialect::OpenCl);
        let cu = gather_text(Dialect::Cuda);
        assert!(cl.starts_with("__kernel void op2rs_gather_rows(const __global uchar *src, __global const int *rows, __global uchar *dst,"));
        assert!(cu.starts_with("extern \"C\" __global__ void op2rs_gather_rows(const unsigned char *src, const int *rows, unsigned char *dst,"));
        assert!(cl.contains("const size_t i = get_global_id(0);"));
        assert!(cu.contains("const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;"));
        let body = |t: &str| {
            t.split_once("{\n")
                .unwrap()
                .1
                .split_once('\n')
                .unwrap()
                .1
                .to_string()
        };
        assert_eq!(body(&cl), body(&cu), "the same body after the index");
    }
}
