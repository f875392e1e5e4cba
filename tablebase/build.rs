//! Computes the tables of canonical point sets (`src/sets.rs`) once, at build time,
//! for the library to embed: a command that probes a few positions then reads them
//! instead of rebuilding them (about 300 million instructions for the sizes 0-9).

#[allow(dead_code)]
#[path = "src/combin.rs"]
mod combin;
#[allow(dead_code)]
#[path = "src/sets.rs"]
mod sets;

fn main() {
    println!("cargo:rerun-if-changed=src/sets.rs");
    println!("cargo:rerun-if-changed=src/combin.rs");
    let dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let path = std::path::Path::new(&dir).join("sets.bin");
    if let Err(e) = std::fs::write(&path, sets::blob()) {
        panic!("cannot write {}: {e}", path.display());
    }
}
