//! The shape of the workspace (DESIGN.md, "Layout"): data flows one way between the
//! crates, `unsafe` lives in `morris-sys` alone, and only the binary reads the
//! environment.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The library crates: folder, and the workspace crates each may depend on.
const CRATES: [(&str, &[&str]); 5] = [
    ("engine", &[]),
    ("sys", &[]),
    ("tablebase", &["morris-engine", "morris-sys"]),
    (
        "builder",
        &["morris-engine", "morris-sys", "morris-tablebase"],
    ),
    (
        "solver",
        &["morris-engine", "morris-sys", "morris-tablebase"],
    ),
];

/// The workspace crates a manifest names, dependencies and dev-dependencies alike.
fn workspace_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).expect("a manifest");
    let mut section = String::new();
    let mut found = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if section.contains("dependencies") {
            if let Some(name) = line.split(['=', '.', ' ']).next() {
                if name.starts_with("morris-") {
                    found.push(name.to_string());
                }
            }
        }
    }
    found
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    for (folder, allowed) in CRATES {
        let manifest = Path::new(ROOT).join(folder).join("Cargo.toml");
        for dep in workspace_dependencies(&manifest) {
            assert!(
                allowed.contains(&dep.as_str()),
                "{folder} depends on {dep}, which it may not"
            );
        }
    }
}

#[test]
fn only_morris_sys_allows_unsafe_code() {
    for (folder, _) in CRATES {
        let lib = std::fs::read_to_string(Path::new(ROOT).join(folder).join("src/lib.rs"))
            .expect("a lib.rs");
        let forbids = lib.contains("#![forbid(unsafe_code)]")
            || lib.contains("#![cfg_attr(not(test), forbid(unsafe_code))]");
        assert_eq!(forbids, folder != "sys", "{folder}: forbid(unsafe_code)");
    }
}

#[test]
fn no_library_reads_the_environment() {
    for (folder, _) in CRATES {
        for file in sources(&Path::new(ROOT).join(folder).join("src")) {
            let text = std::fs::read_to_string(&file).expect("a source file");
            assert!(
                !text.contains("env::var"),
                "{} reads the environment: the binary reads it and passes it down",
                file.display()
            );
        }
    }
}
