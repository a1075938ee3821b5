//! One crate's module tree, read from its root file by following `mod`
//! declarations (and `#[path]`), and the resolution of a path written in
//! one module to the file it leads to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::lex::{lex, Token};
use super::syntax::{walk, Event};

/// A module of one crate: a file, or an inline `mod x { … }` inside one.
#[derive(Debug)]
struct Module {
    file: PathBuf,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Names bound by `use` in this module: name → path (as written).
    uses: BTreeMap<String, Vec<String>>,
    /// `use a::b::*` in this module: the paths before the `*`.
    globs: Vec<Vec<String>>,
    /// Names this module defines itself.
    items: BTreeSet<String>,
}

/// One crate's modules, read from its root file.
pub(crate) struct Crate {
    modules: Vec<Module>,
    /// Each file's folder for the files of its child modules.
    bases: BTreeMap<PathBuf, PathBuf>,
}

impl Crate {
    /// Follows `mod` declarations from `root`; `files` maps each reached file
    /// to its tokens.
    pub(crate) fn read(
        root: &Path,
        sources: &BTreeMap<PathBuf, String>,
        files: &mut BTreeMap<PathBuf, Vec<Token>>,
    ) -> Crate {
        let mut krate = Crate {
            modules: Vec::new(),
            bases: BTreeMap::new(),
        };
        krate.add_file(root.to_path_buf(), None, None, true, sources, files);
        krate
    }

    fn add_file(
        &mut self,
        file: PathBuf,
        name: Option<&str>,
        parent: Option<usize>,
        mod_rs: bool,
        sources: &BTreeMap<PathBuf, String>,
        files: &mut BTreeMap<PathBuf, Vec<Token>>,
    ) -> usize {
        let id = self.new_module(file.clone(), name, parent);
        let Some(src) = sources.get(&file) else {
            return id;
        };
        let toks = files
            .entry(file.clone())
            .or_insert_with(|| lex(src))
            .clone();
        // Where `mod x;` looks for x.rs: beside a mod.rs-like file, or in the
        // folder named after the file; inline modules add their names.
        let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        let base = if mod_rs {
            dir.clone()
        } else {
            dir.join(file.file_stem().unwrap())
        };
        self.bases.insert(file.clone(), base.clone());
        let mut stack = vec![(id, base)];
        let mut decls = Vec::new();
        walk(&toks, |event| match event {
            Event::Mod {
                name,
                path_attr,
                inline,
            } => {
                let (current, base) = stack.last().unwrap().clone();
                if inline {
                    let child = self.new_module(file.clone(), Some(name), Some(current));
                    stack.push((child, base.join(name)));
                } else {
                    let nested = stack.len() > 1;
                    let (child_file, child_mod_rs) = match path_attr {
                        Some(p) if nested => (base.join(p), true),
                        Some(p) => (dir.join(p), true),
                        None => {
                            let flat = base.join(format!("{name}.rs"));
                            if sources.contains_key(&flat) {
                                (flat, false)
                            } else {
                                (base.join(name).join("mod.rs"), true)
                            }
                        }
                    };
                    decls.push((name.to_string(), current, child_file, child_mod_rs));
                }
            }
            Event::Close => {
                stack.pop();
            }
            _ => {}
        });
        for (name, current, child_file, child_mod_rs) in decls {
            self.add_file(
                child_file,
                Some(&name),
                Some(current),
                child_mod_rs,
                sources,
                files,
            );
        }
        id
    }

    fn new_module(&mut self, file: PathBuf, name: Option<&str>, parent: Option<usize>) -> usize {
        let id = self.modules.len();
        self.modules.push(Module {
            file,
            parent,
            children: BTreeMap::new(),
            uses: BTreeMap::new(),
            globs: Vec::new(),
            items: BTreeSet::new(),
        });
        if let (Some(name), Some(parent)) = (name, parent) {
            self.modules[parent].children.insert(name.to_string(), id);
        }
        id
    }

    /// The modules of `file` in the order `walk` opens them: the file's own
    /// module first, then its inline modules.
    fn modules_of(&self, file: &Path) -> Vec<usize> {
        (0..self.modules.len())
            .filter(|&m| self.modules[m].file == file)
            .collect()
    }

    /// Records every `use` and item of `file` in the module it is written in.
    pub(crate) fn record_uses(&mut self, file: &Path, toks: &[Token]) {
        let ids = self.modules_of(file);
        let mut next = ids.iter().copied().skip(1);
        let mut stack = vec![ids[0]];
        let (mut found, mut defined) = (Vec::new(), Vec::new());
        walk(toks, |event| match event {
            Event::Mod { inline: true, .. } => {
                stack.push(next.next().unwrap());
            }
            Event::Close => {
                stack.pop();
            }
            Event::Use(items, _, _) => found.push((*stack.last().unwrap(), items)),
            Event::Item(name) => defined.push((*stack.last().unwrap(), name.to_string())),
            _ => {}
        });
        for (m, name) in defined {
            self.modules[m].items.insert(name);
        }
        for (m, items) in found {
            for item in items {
                match item.binds {
                    Some(name) if name != "_" => {
                        self.modules[m].uses.insert(name, item.path);
                    }
                    Some(_) => {}
                    None => self.modules[m].globs.push(item.path),
                }
            }
        }
    }

    /// The files `file` refers to, each with the first line referring to it.
    pub(crate) fn references(&self, file: &Path, toks: &[Token]) -> BTreeMap<PathBuf, usize> {
        let ids = self.modules_of(file);
        let mut next = ids.iter().copied().skip(1);
        let mut stack = vec![ids[0]];
        let mut refs = BTreeMap::new();
        let mut note = |target: Option<PathBuf>, line: usize| {
            if let Some(target) = target.filter(|t| t != file) {
                refs.entry(target).or_insert(line);
            }
        };
        walk(toks, |event| match event {
            Event::Mod { inline: true, .. } => stack.push(next.next().unwrap()),
            Event::Close => {
                stack.pop();
            }
            Event::Use(items, public, line) => {
                for item in items {
                    let target = self.resolve(*stack.last().unwrap(), &item.path, 0);
                    // A parent re-exporting its child's item is the child's
                    // public face, as much a declaration as `mod child;`.
                    let re_export = public
                        && target
                            .as_ref()
                            .is_some_and(|t| t.starts_with(&self.bases[file]));
                    if !re_export {
                        note(target, line);
                    }
                }
            }
            Event::Path(path, line) => note(self.resolve(*stack.last().unwrap(), &path, 0), line),
            _ => {}
        });
        refs
    }

    /// The file a path written in module `from` leads to: the module it
    /// names, or the home of the item it names; `None` outside this crate.
    fn resolve(&self, from: usize, path: &[String], hops: usize) -> Option<PathBuf> {
        if hops > 16 || path.is_empty() {
            return None;
        }
        let mut module = match path[0].as_str() {
            "crate" => 0,
            "self" => from,
            "super" => self.modules[from].parent?,
            first => return self.resolve_name(from, first, &path[1..], hops, true),
        };
        let mut rest = &path[1..];
        while let Some(seg) = rest.first() {
            if seg == "super" {
                module = self.modules[module].parent?;
                rest = &rest[1..];
            } else {
                return self.resolve_name(module, seg, &rest[1..], hops, false);
            }
        }
        Some(self.modules[module].file.clone())
    }

    /// `name` (then `rest`) looked up in `module`: a child module, a name
    /// the module imports (followed), or else an item defined in it. At the
    /// start of a path (`first`), a name that is neither a child nor an
    /// import is another crate (`std::fmt`) or a local item: no file.
    fn resolve_name(
        &self,
        module: usize,
        name: &str,
        rest: &[String],
        hops: usize,
        first: bool,
    ) -> Option<PathBuf> {
        let m = &self.modules[module];
        if let Some(&child) = m.children.get(name) {
            let mut path = vec!["self".to_string()];
            path.extend_from_slice(rest);
            return self.resolve(child, &path, hops + 1);
        }
        // A function and an imported module may share a name (`fn bench`
        // beside `use crate::bench`): a path ending there means the item.
        if m.items.contains(name) && (rest.is_empty() || !m.uses.contains_key(name)) {
            return Some(m.file.clone());
        }
        if let Some(target) = m.uses.get(name) {
            let mut path = target.clone();
            path.extend_from_slice(rest);
            return self.resolve(module, &path, hops + 1);
        }
        // Through a glob only where the glob's module passes the name on
        // (a child or an import of its own); its own items are the glob's
        // reference already.
        for glob in &m.globs {
            let mut path = glob.clone();
            path.push(name.to_string());
            path.extend_from_slice(rest);
            let file = self.resolve(module, &path, hops + 1);
            if file.is_some() && file != self.resolve(module, glob, hops + 1) {
                return file;
            }
        }
        if first {
            return None;
        }
        Some(m.file.clone())
    }
}
