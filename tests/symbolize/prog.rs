// prog.rs - a Rust workload for demangling: a function in a module (legacy
// mangling by default, v0 with -C symbol-mangling-version=v0) called through
// the standard library (v0 names from rustup's toolchains, legacy from Debian's).
// Builds with rustc 1.63 (Debian 12): no std::hint::black_box, a volatile read.
#[inline(always)]
fn black_box(x: u64) -> u64 { unsafe { std::ptr::read_volatile(&x) } }
mod work {
    #[inline(never)]
    pub fn spin(n: u64) -> u64 {
        let mut x = 1u64;
        for i in 0..n { x = super::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i)); }
        x
    }
}
struct Runner<T> { v: T }
impl<T: Copy + Into<u64>> Runner<T> {
    #[inline(never)]
    fn run(&self) -> u64 { work::spin(self.v.into()) }
}
fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let r = Runner { v: 200000u32 };
    let mut s = 0u64;
    for _ in 0..n { s = s.wrapping_add(black_box(r.run())); }
    println!("{}", s);
}
