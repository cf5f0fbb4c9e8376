//! The layout of the workspace, checked: no import circle between the
//! modules of any crate (cargo already forbids them between crates), and
//! no source file with over 500 lines before its tests. A module's edges are the `crate::` and
//! `super::` paths in its code (comments and test modules aside), resolved
//! to the module file they land in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `a/b.rs` and `a/b/mod.rs` → `a::b`; `lib.rs`, `main.rs` → the root.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut v: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(v.last().map(String::as_str), Some("lib" | "main" | "mod")) {
        v.pop();
    }
    v
}

/// The code of a file without comments and without its test module.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(strip_comment)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line without its `//` comment; a `://` (a URL in a string) is not
/// one, or the string it sits in would be cut open.
fn strip_comment(l: &str) -> &str {
    let mut from = 0;
    while let Some(k) = l[from..].find("//") {
        let at = from + k;
        if at > 0 && l.as_bytes()[at - 1] == b':' {
            from = at + 2;
            continue;
        }
        return &l[..at];
    }
    l
}

/// Paths after `crate::` or `super::` (with the super count), as segments.
fn references(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let starts_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let (supers, skip) = if starts_word && rest.starts_with("crate::") {
            (usize::MAX, 7)
        } else if starts_word && rest.starts_with("super::") {
            let mut n = 0;
            let mut j = 0;
            while code[i + j..].starts_with("super::") {
                n += 1;
                j += 7;
            }
            (n, j)
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let path: Vec<String> = code[i + skip..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .next()
            .unwrap_or("")
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        out.push((supers, path));
        i += skip;
    }
    out
}

fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    fn dfs(
        n: &Vec<String>,
        g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        found: &mut Vec<Vec<Vec<String>>>,
    ) {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for t in g.get(n).into_iter().flatten() {
            match state.get(t) {
                Some(1) => {
                    let at = stack.iter().position(|x| x == t).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(t.clone());
                    found.push(c);
                }
                Some(_) => {}
                None => dfs(t, g, state, stack, found),
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for n in graph.keys() {
        if !state.contains_key(n) {
            dfs(n, graph, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

fn crates() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

#[test]
fn no_crate_has_an_import_circle_between_its_modules() {
    let mut report = Vec::new();
    for src in crates() {
        let mut files = Vec::new();
        rs_files(&src, &mut files);
        let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(&src, f)).collect();
        let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for f in &files {
            let m = module_of(&src, f);
            if m.is_empty() || m.last().is_some_and(|x| x == "tests") {
                continue;
            }
            let text = std::fs::read_to_string(f).unwrap();
            for (supers, path) in references(&code(&text)) {
                let mut full = if supers == usize::MAX {
                    Vec::new()
                } else {
                    // `super` from a file module is its parent module.
                    m[..m.len().saturating_sub(supers)].to_vec()
                };
                full.extend(path);
                // The deepest module file the path lands in.
                while !full.is_empty() && !modules.contains(&full) {
                    full.pop();
                }
                let is_ancestor = m.starts_with(&full);
                if !full.is_empty() && full != m && !is_ancestor {
                    graph.entry(m.clone()).or_default().insert(full);
                }
            }
        }
        for c in cycles(&graph) {
            let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
            report.push(format!("{}: {}", src.display(), names.join(" → ")));
        }
    }
    assert!(report.is_empty(), "import circles:\n{}", report.join("\n"));
}

/// A file of tests only (`tests.rs`, `*_tests.rs`, or under a `tests/`
/// folder of the sources): its length is not the code's.
fn is_tests_file(f: &Path) -> bool {
    let name = f.file_name().unwrap().to_string_lossy();
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || f.components().any(|c| c.as_os_str() == "tests")
}

#[test]
fn no_source_file_has_over_500_lines_of_code() {
    let mut long = Vec::new();
    for src in crates() {
        let mut files = Vec::new();
        rs_files(&src, &mut files);
        for f in files {
            if is_tests_file(f.strip_prefix(&src).unwrap_or(&f)) {
                continue;
            }
            // Byte-literal tests beside the code (as smoltcp keeps them) do
            // not count.
            let text = std::fs::read_to_string(&f).unwrap();
            let n = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or("")
                .lines()
                .count();
            if n > 500 {
                long.push(format!("{}: {n} lines", f.display()));
            }
        }
    }
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

/// The `prism` binary parses commands and hands them to the libraries
/// (docs/architecture.md): a binary that grows past this has taken on
/// library logic, which a test or another front end cannot reach.
#[test]
fn the_binary_stays_argument_parsing() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../prism/src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    // Code only: the commands' help (doc comments) is what a parser is for.
    let lines: usize = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let code = |l: &&str| !l.trim().is_empty() && !l.trim_start().starts_with("//");
            text.lines().filter(code).count()
        })
        .sum();
    assert!(
        lines < 1_400,
        "crates/prism/src has {lines} lines of code: move the logic to its library"
    );
}

/// The controller's SQL lives in its datastore (one module per resource)
/// and `infra/db.rs` with its modules under `infra/db/` (the pool, migrations, the
/// booking lock, their tests): the application
/// layer authorizes and validates, and calls the datastore.
#[test]
fn the_controllers_sql_is_in_its_datastore() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../controller/src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut outside = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        if rel.starts_with("datastore")
            || rel.starts_with("infra/db")
            || rel == Path::new("infra/db.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let n = text.matches("sqlx::query").count();
        if n > 0 {
            outside.push(format!("{}: {n}", rel.display()));
        }
    }
    assert!(
        files.len() > 20,
        "found {} files under {}",
        files.len(),
        src.display()
    );
    assert!(
        outside.is_empty(),
        "SQL outside the datastore:\n{}",
        outside.join("\n")
    );
}

/// A client of the controller links its API crate, not the server: the
/// database and the HTTP server are optional there (the `server`
/// feature), and the password hashing absent.
/// Whether `word` is in `code` as a whole identifier.
fn names_word(code: &str, word: &str) -> bool {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    code.match_indices(word).any(|(i, _)| {
        !ident(code[..i].chars().next_back()) && !ident(code[i + word.len()..].chars().next())
    })
}

/// The controller is no god object: its application is functions over a
/// context (`app::context::Context`), each resource's in its module; the
/// `Controller`'s own methods are written in one file and its API's area
/// traits (`prism_controller_api::areas`) in one other; the handlers reach
/// it only through those traits, so they name no `Controller`.
#[test]
fn the_controller_is_no_god_object() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../controller/src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let (mut inherent, mut traits, mut handlers) = (Vec::new(), Vec::new(), Vec::new());
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        let code = code_of(f);
        for l in code.lines() {
            if l.starts_with("impl Controller") {
                inherent.push(rel.clone());
            }
            if l.starts_with("impl ") && l.contains(" for Controller") {
                traits.push(rel.clone());
            }
        }
        let names = names_word(&without_literals(&code).join("\n"), "Controller");
        if (rel.starts_with("api/") || rel.starts_with("app/")) && names {
            handlers.push(rel);
        }
    }
    inherent.dedup();
    traits.dedup();
    assert_eq!(
        inherent,
        ["controller.rs"],
        "`impl Controller` outside one file"
    );
    assert_eq!(
        traits,
        ["controller/areas.rs"],
        "area traits implemented apart"
    );
    assert!(
        handlers.is_empty(),
        "handlers or application naming `Controller`: {handlers:?}"
    );
}

#[test]
fn the_controller_api_crate_links_no_server() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../controller-api/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let deps = text.split("[features]").next().unwrap();
    for server_side in ["sqlx", "axum"] {
        let line = deps
            .lines()
            .find(|l| l.starts_with(server_side))
            .unwrap_or_else(|| panic!("{server_side} not in {}", manifest.display()));
        assert!(line.contains("optional = true"), "{line}");
    }
    for never in ["argon2", "prism-controller.", "prism-controller ", "ring"] {
        assert!(!deps.contains(never), "{never} in {}", manifest.display());
    }
}

#[test]
fn the_checker_sees_a_circle() {
    let dir = std::env::temp_dir().join(format!("prism-layout-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/a.rs"), "use crate::b::X;\n").unwrap();
    std::fs::write(
        dir.join("src/b.rs"),
        "// crate::a is only mentioned\npub use super::a::Y;\n",
    )
    .unwrap();
    let mut files = Vec::new();
    rs_files(&dir.join("src"), &mut files);
    let refs: Vec<_> = files
        .iter()
        .map(|f| references(&code(&std::fs::read_to_string(f).unwrap())))
        .collect();
    assert!(
        refs.iter()
            .flatten()
            .any(|(s, p)| *s == usize::MAX && p == &["b", "X"])
    );
    assert!(
        refs.iter()
            .flatten()
            .any(|(s, p)| *s == 1 && p == &["a", "Y"])
    );
    let mut g = BTreeMap::new();
    g.insert(
        vec!["a".to_string()],
        BTreeSet::from([vec!["b".to_string()]]),
    );
    g.insert(
        vec!["b".to_string()],
        BTreeSet::from([vec!["a".to_string()]]),
    );
    assert_eq!(cycles(&g).len(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Each line of `code` with its string and character literals emptied
/// (their braces are not code), lifetimes kept.
fn without_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_str: Option<usize> = None; // Some(hashes) inside a string
    for line in code.lines() {
        let b: Vec<char> = line.chars().collect();
        let mut s = String::new();
        let mut i = 0;
        while i < b.len() {
            if let Some(h) = in_str {
                let closes = b[i] == '"' && (0..h).all(|k| b.get(i + 1 + k) == Some(&'#'));
                if b[i] == '\\' && h == 0 {
                    i += 2;
                    continue;
                }
                if closes {
                    in_str = None;
                    i += 1 + h;
                    s.push('"');
                    continue;
                }
                i += 1;
                continue;
            }
            match b[i] {
                '"' => {
                    let mut h = 0;
                    let mut j = i;
                    while j > 0 && b[j - 1] == '#' {
                        h += 1;
                        j -= 1;
                    }
                    let raw = j > 0 && b[j - 1] == 'r';
                    in_str = Some(if raw { h } else { 0 });
                    s.push('"');
                }
                '\'' if b.get(i + 1) == Some(&'\\') => {
                    // '\n', '\'', '\u{7f}': to the closing quote.
                    let end = (i + 2..b.len()).find(|&k| b[k] == '\'' && k > i + 2);
                    i = end.unwrap_or(i);
                    s.push_str("' '");
                }
                '\'' if b.get(i + 2) == Some(&'\'') => {
                    i += 2;
                    s.push_str("' '");
                }
                c => s.push(c),
            }
            i += 1;
        }
        out.push(s);
    }
    out
}

/// The functions of a file's code (test module aside) and their lengths
/// in lines, from the `fn` line to the closing brace.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines = without_literals(&code(text));
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let Some(at) = t.find("fn ") else { continue };
        let before = &t[..at];
        let qualifiers = [
            "pub",
            "pub(crate)",
            "pub(super)",
            "async",
            "unsafe",
            "const",
            "extern",
        ];
        if !before.split_whitespace().all(|w| qualifiers.contains(&w)) {
            continue;
        }
        let name: String = t[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut depth = 0i64;
        let mut started = false;
        for (j, l) in lines[i..].iter().enumerate() {
            if !started && l.contains(';') && !l.contains('{') {
                break; // a declaration without a body
            }
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        started = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if started && depth == 0 {
                out.push((name.clone(), j + 1));
                break;
            }
        }
    }
    out
}

/// The longest a function may be (docs/architecture.md), counted in the
/// code before a file's tests.
const MAX_FUNCTION_LINES: usize = 60;

/// Functions allowed past [`MAX_FUNCTION_LINES`] (crate source path, name,
/// ceiling). The data path's hot loops are the named exception of
/// docs/architecture.md, kept whole on purpose for what the compiler does
/// with them: the pipeline's pass per packet (stages, actions, payload
/// operations), a port's deficit-round-robin dequeue per batch, a ring
/// block's receive loop and the AVX-512 walk of the classifier's trees.
const HOT_PATH: &[(&str, &str, usize)] = &[
    ("io/src/afpacket.rs", "recv_block", 76),
    ("pipeline/src/fast/action.rs", "apply", 97),
    ("pipeline/src/fast/output.rs", "dequeue", 69),
    ("pipeline/src/fast/payload.rs", "apply", 145),
    ("pipeline/src/fast/stages.rs", "process", 77),
    ("pipeline/src/fast/stages.rs", "stages", 66),
    ("tables/src/wide_walk.rs", "walk_avx512", 77),
];

/// Each function of `text`'s code (before its tests) with its length.
fn code_function_lengths(text: &str) -> Vec<(String, usize)> {
    function_lengths(text.split("#[cfg(test)]").next().unwrap_or(""))
}

fn ceiling_of(rel: &str, func: &str) -> Option<usize> {
    HOT_PATH
        .iter()
        .find(|(p, f, _)| *p == rel && *f == func)
        .map(|x| x.2)
}

#[test]
fn long_function_ceilings_are_tight() {
    // A ceiling above what its function is now would let it grow back
    // unseen: each is lowered (or taken off) as its function shrinks.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = Vec::new();
    for (rel, func, max) in HOT_PATH {
        let text = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
        let now = code_function_lengths(&text)
            .into_iter()
            .filter(|(f, _)| f == func)
            .map(|(_, n)| n)
            .max();
        match now {
            Some(n) if n > MAX_FUNCTION_LINES && n < *max => {
                report.push(format!("    (\"{rel}\", \"{func}\", {n}), (was {max})"))
            }
            Some(n) if n <= MAX_FUNCTION_LINES => {
                report.push(format!("    {rel} {func}: {n} lines, take it off"))
            }
            None => report.push(format!("    {rel} {func}: gone, take it off")),
            _ => {}
        }
    }
    assert!(
        report.is_empty(),
        "long functions' ceilings to lower:\n{}",
        report.join("\n")
    );
}

#[test]
fn no_function_grows_past_its_ceiling() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = Vec::new();
    for src in crates() {
        let mut files = Vec::new();
        rs_files(&src, &mut files);
        files.sort();
        for f in files {
            if is_tests_file(f.strip_prefix(&src).unwrap_or(&f)) {
                continue;
            }
            let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
            let text = std::fs::read_to_string(&f).unwrap();
            for (func, n) in code_function_lengths(&text) {
                if n <= MAX_FUNCTION_LINES {
                    continue;
                }
                if ceiling_of(&rel, &func).is_none_or(|max| n > max) {
                    report.push(format!("    (\"{rel}\", \"{func}\", {n}),"));
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines that are new or grew (split them):\n{}",
        report.join("\n")
    );
}

#[test]
fn a_url_in_a_string_is_not_a_comment() {
    assert_eq!(
        strip_comment(r#"let a = s.contains("://"); // why"#),
        r#"let a = s.contains("://"); "#
    );
    assert_eq!(strip_comment("x // y"), "x ");
    let text = "fn f() {\n    let u = \"postgres://h\";\n    if u.is_empty() {\n    }\n}\n";
    assert_eq!(function_lengths(text), vec![("f".to_string(), 5)]);
}

#[test]
fn the_length_scan_skips_braces_in_literals() {
    let text = "fn a() {\n    let s = \"{{{\";\n    let c = '{';\n    let r = r#\"}\"#;\n    x::<'static>();\n}\nfn b() {}\n";
    assert_eq!(
        function_lengths(text),
        [("a".to_string(), 6), ("b".to_string(), 1)]
    );
}

/// The portal's ES modules import one another without a circle: the pages
/// ask for a redraw through `core.js`'s router, which `app.js` registers
/// with, not by importing `app.js` (which imports every page).
#[test]
fn the_portals_modules_import_no_circle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../controller/portal");
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !name.ends_with(".js") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        for line in text.lines().filter(|l| l.starts_with("import ")) {
            let from = line.rsplit(" from ").next().unwrap_or("");
            let target = from.trim_matches(|c| c == '"' || c == ';' || c == '\'');
            let target = target.trim_start_matches("./").to_string();
            graph
                .entry(vec![name.clone()])
                .or_default()
                .insert(vec![target]);
        }
    }
    assert!(
        graph.len() >= 5,
        "the portal's modules not found: {graph:?}"
    );
    let found: Vec<String> = cycles(&graph)
        .iter()
        .map(|c| {
            c.iter()
                .map(|m| m[0].clone())
                .collect::<Vec<_>>()
                .join(" → ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "portal import circles:\n{}",
        found.join("\n")
    );
}

/// Whether a comment narrates how the code got here (a date, an issue, a
/// stop, what the code was before, a value's earlier value): history
/// belongs in commits and docs/performance-history.md.
fn narrates(comment: &str) -> Option<&'static str> {
    let c = comment.to_ascii_lowercase();
    let b = c.as_bytes();
    let digit_after = |at: usize| b.get(at).is_some_and(u8::is_ascii_digit);
    if let Some(i) = c.find("issue ")
        && digit_after(i + 6)
    {
        return Some("an issue");
    }
    let dated = (0..b.len().saturating_sub(10)).any(|i| {
        b[i..].starts_with(b"20")
            && (i + 2..i + 4).all(&digit_after)
            && b[i + 4] == b'-'
            && (i + 5..i + 7).all(&digit_after)
            && b[i + 7] == b'-'
    });
    if dated {
        return Some("a date");
    }
    for (words, what) in [
        ("this stop", "a stop"),
        ("raised from", "a value's history"),
        ("lowered from", "a value's history"),
        ("used to be", "what the code was"),
    ] {
        if c.contains(words) {
            return Some(what);
        }
    }
    None
}

#[test]
fn no_comment_narrates_history() {
    assert_eq!(narrates("raised from 30 ms"), Some("a value's history"));
    assert_eq!(narrates("(issue 11, item 4)"), Some("an issue"));
    assert_eq!(narrates("CI, 2026-11-26: 166 lost"), Some("a date"));
    assert_eq!(narrates("used to rewrite IPIP endpoints"), None);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        let mut files = Vec::new();
        for dir in ["src", "tests", "benches"] {
            if e.path().join(dir).is_dir() {
                rs_files(&e.path().join(dir), &mut files);
            }
        }
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let Some(at) = line.find("//") else {
                    continue;
                };
                if let Some(what) = narrates(&line[at..]) {
                    found.push(format!("{}:{}: {what}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "comments narrating history:\n{}",
        found.join("\n")
    );
}

/// docs/performance.md is a reference of today's figures, each with its
/// command and machine; runs, before/after columns and their stories go
/// to docs/performance-history.md.
#[test]
fn the_performance_page_stays_a_reference() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/performance.md");
    let text = std::fs::read_to_string(&p).unwrap();
    let n = text.lines().count();
    assert!(n < 400, "docs/performance.md has {n} lines (under 400)");
    assert!(
        !text.contains("an hour later"),
        "a run's story in docs/performance.md"
    );
}

/// One module style: `foo.rs` beside `foo/`, never `foo/mod.rs`, in every
/// crate's sources (an integration test's shared `common/mod.rs` is the
/// exception cargo needs, so that it is not a test of its own).
#[test]
fn no_source_module_is_a_mod_rs() {
    let mut found = Vec::new();
    for src in crates() {
        let mut files = Vec::new();
        rs_files(&src, &mut files);
        found.extend(
            files
                .iter()
                .filter(|f| f.file_name().is_some_and(|n| n == "mod.rs"))
                .map(|f| f.display().to_string()),
        );
    }
    assert!(
        found.is_empty(),
        "mod.rs files (use foo.rs beside foo/):\n{}",
        found.join("\n")
    );
}

/// The folders of a crate that may not use another of its folders (crate
/// source, folder, the folders it may not use): the data plane is handed
/// what the control side built, and never reaches back into it.
const FOLDER_RULES: &[(&str, &str, &[&str])] = &[
    ("pipeline/src", "fast", &["control"]),
    ("pipeline/src", "wan", &["control"]),
    ("pipeline/src", "software", &["control"]),
    ("controller/src", "datastore", &["app", "api"]),
    ("controller/src", "infra", &["app", "api", "datastore"]),
    ("controller/src", "app", &["api", "controller"]),
];

/// The code of `file` before its tests, without its comments (a doc
/// link to another layer is no use of it).
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `code` names `crate::folder` (in a path or a `use crate::{…}`).
fn names_folder(code: &str, folder: &str) -> bool {
    let path = format!("crate::{folder}::");
    if code.contains(&path) {
        return true;
    }
    code.match_indices("crate::{").any(|(at, _)| {
        let rest = &code[at + 8..];
        let inner = &rest[..rest.find(';').unwrap_or(rest.len())];
        inner
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .any(|w| w.starts_with(&format!("{folder}::")) || w == folder)
    })
}

#[test]
fn no_folder_uses_one_it_must_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = Vec::new();
    for (src, folder, banned) in FOLDER_RULES {
        let src = root.join(src);
        let mut files = vec![src.join(format!("{folder}.rs"))];
        rs_files(&src.join(folder), &mut files);
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy();
            if name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let code = code_of(&f);
            for b in *banned {
                if names_folder(&code, b) {
                    report.push(format!("{} uses `{b}`", f.display()));
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "folders crossing their layers:\n{}",
        report.join("\n")
    );
}

#[test]
fn a_folders_crossing_is_seen() {
    assert!(names_folder("use crate::control::spec::Tier;", "control"));
    assert!(names_folder(
        "use crate::{fast::packet, control::device};",
        "control"
    ));
    assert!(!names_folder("use crate::fast::control_word;", "control"));
    assert!(!names_folder(
        "use crate::{fast::packet, wan::nat};",
        "control"
    ));
}

/// CONTRIBUTING.md's layout names every crate and every folder of a
/// crate's sources.
#[test]
fn contributing_names_every_crate_and_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("CONTRIBUTING.md")).unwrap();
    let mut missing = Vec::new();
    for src in crates() {
        let krate = src.parent().unwrap().file_name().unwrap().to_string_lossy();
        if !text.contains(&format!("crates/{krate} ")) {
            missing.push(format!("crates/{krate}"));
        }
        if !["pipeline", "controller", "lab"].contains(&krate.as_ref()) {
            continue;
        }
        for e in std::fs::read_dir(&src).unwrap().flatten() {
            if e.path().is_dir() {
                let folder = format!("src/{}/", e.file_name().to_string_lossy());
                if !text.contains(&folder) {
                    missing.push(format!("crates/{krate}/{folder}"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in CONTRIBUTING.md's layout: {missing:?}"
    );
}

/// Whether `stem` (a file's name without `.rs`) spells a folder of
/// `folders` as a prefix or suffix (`wan_demo`, `live_demo`, `bench_live`).
fn spells_a_folder(stem: &str, folders: &[String]) -> Option<String> {
    folders
        .iter()
        .find(|f| stem.starts_with(&format!("{f}_")) || stem.ends_with(&format!("_{f}")))
        .cloned()
}

/// A folder's modules live in it, not beside it with its name as a
/// prefix or suffix.
#[test]
fn no_file_spells_a_folder_in_its_name() {
    let mut report = Vec::new();
    for src in crates() {
        let mut dirs = vec![src.clone()];
        while let Some(dir) = dirs.pop() {
            let entries: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            let folders: Vec<String> = entries
                .iter()
                .filter(|p| p.is_dir())
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect();
            for p in &entries {
                if p.is_dir() {
                    dirs.push(p.clone());
                    continue;
                }
                let stem = p.file_stem().unwrap().to_string_lossy();
                if let Some(f) = spells_a_folder(&stem, &folders) {
                    report.push(format!("{} (beside {f}/)", p.display()));
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "move these into their folders:\n{}",
        report.join("\n")
    );
}

#[test]
fn a_folder_spelled_in_a_name_is_seen() {
    let folders = vec!["wan".to_string(), "demo".to_string()];
    assert_eq!(spells_a_folder("wan_demo", &folders), Some("wan".into()));
    assert_eq!(spells_a_folder("live_demo", &folders), Some("demo".into()));
    assert_eq!(spells_a_folder("wander", &folders), None);
}

/// Module names that once meant several things, and the one file each
/// may name now (`None`: none): a span is a network spanning nodes; a
/// node reconciles (its `control`), the controller converges nodes; a
/// network's encryption and compression are payload operations.
const ONE_MEANING: &[(&str, Option<&str>)] = &[
    ("span.rs", Some("controller/src/app/span.rs")),
    ("reconcile.rs", None),
    ("reconcile_change.rs", None),
    ("services.rs", None),
    ("pipeline.rs", None),
    ("testbed.rs", None),
];

#[test]
fn names_keep_one_meaning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = Vec::new();
    for src in crates() {
        let mut files = Vec::new();
        rs_files(&src, &mut files);
        for f in files {
            let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            for (banned, allowed) in ONE_MEANING {
                if name == *banned && *allowed != Some(rel.as_str()) {
                    report.push(rel.clone());
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "names with another meaning taken: {report:?}"
    );
}
