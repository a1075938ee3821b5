//! One crate's module tree, read from its root file by following `mod`
//! declarations (and `#[path]`), and the resolution of a path written in
//! one module to the file it leads to: the files each file refers to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::graph::Graph;
use super::syntax::Scope;

/// A module of one crate: a file, or an inline `mod x { … }` inside one.
#[derive(Debug)]
struct Module {
    file: PathBuf,
    /// Which of the file's scopes it is; `None` when the file is missing
    /// or could not be parsed.
    scope: Option<usize>,
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
pub(crate) struct Crate<'a> {
    modules: Vec<Module>,
    /// Each file's folder for the files of its child modules.
    bases: BTreeMap<PathBuf, PathBuf>,
    parsed: &'a BTreeMap<PathBuf, Vec<Scope>>,
}

impl<'a> Crate<'a> {
    /// Follows `mod` declarations from `root`; `sources` says which files
    /// exist, `parsed` holds the scopes of each file that parsed.
    pub(crate) fn read(
        root: &Path,
        sources: &BTreeMap<PathBuf, String>,
        parsed: &'a BTreeMap<PathBuf, Vec<Scope>>,
    ) -> Crate<'a> {
        let mut krate = Crate {
            modules: Vec::new(),
            bases: BTreeMap::new(),
            parsed,
        };
        krate.add_file(root, None, None, true, sources);
        for module in &mut krate.modules {
            let Some(scope) = module.scope.map(|s| &parsed[&module.file][s]) else {
                continue;
            };
            module.items = scope.items.clone();
            for u in &scope.uses {
                match &u.binds {
                    Some(name) if name != "_" => {
                        module.uses.insert(name.clone(), u.path.clone());
                    }
                    Some(_) => {}
                    None => module.globs.push(u.path.clone()),
                }
            }
        }
        krate
    }

    /// Adds `file` (and the files its `mod` declarations lead to) as the
    /// module `name` of `parent`. A `mod.rs`-like file (`mod_rs`: a crate
    /// root, a `mod.rs`, a `#[path]` file) keeps its children beside it;
    /// `a.rs` keeps them in `a/`. A file reached twice is read once.
    fn add_file(
        &mut self,
        file: &Path,
        name: Option<&str>,
        parent: Option<usize>,
        mod_rs: bool,
        sources: &BTreeMap<PathBuf, String>,
    ) {
        let scopes = self.parsed.get(file);
        if scopes.is_none() || self.bases.contains_key(file) {
            self.new_module(file, None, name, parent);
            return;
        }
        let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        let base = if mod_rs {
            dir.clone()
        } else {
            dir.join(file.file_stem().unwrap())
        };
        self.bases.insert(file.to_path_buf(), base.clone());
        // Each scope's module and its folder for `mod x;`: an inline module
        // adds its name to the folder of the scope it is written in.
        let mut ids: Vec<usize> = Vec::new();
        let mut folders: Vec<PathBuf> = Vec::new();
        for (i, scope) in scopes.unwrap().iter().enumerate() {
            let (id, folder) = match &scope.inline {
                None => (self.new_module(file, Some(i), name, parent), base.clone()),
                Some((inline, outer)) => (
                    self.new_module(file, Some(i), Some(inline), Some(ids[*outer])),
                    folders[*outer].join(inline),
                ),
            };
            ids.push(id);
            folders.push(folder);
        }
        for (i, scope) in scopes.unwrap().iter().enumerate() {
            for (child, path_attr) in &scope.decls {
                let (child_file, child_mod_rs) = match path_attr {
                    Some(p) if scope.inline.is_some() => (folders[i].join(p), true),
                    Some(p) => (dir.join(p), true),
                    None => {
                        let flat = folders[i].join(format!("{child}.rs"));
                        if sources.contains_key(&flat) {
                            (flat, false)
                        } else {
                            (folders[i].join(child).join("mod.rs"), true)
                        }
                    }
                };
                self.add_file(
                    &child_file,
                    Some(child),
                    Some(ids[i]),
                    child_mod_rs,
                    sources,
                );
            }
        }
    }

    fn new_module(
        &mut self,
        file: &Path,
        scope: Option<usize>,
        name: Option<&str>,
        parent: Option<usize>,
    ) -> usize {
        let id = self.modules.len();
        self.modules.push(Module {
            file: file.to_path_buf(),
            scope,
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

    /// Every file of the crate, with each file it refers to and the first
    /// line where it does.
    pub(crate) fn references(&self) -> Graph {
        let mut graph = Graph::new();
        for (id, module) in self.modules.iter().enumerate() {
            let refs = graph.entry(module.file.clone()).or_default();
            let Some(scope) = module.scope.map(|s| &self.parsed[&module.file][s]) else {
                continue;
            };
            let mut note = |target: Option<PathBuf>, line: usize| {
                if let Some(target) = target.filter(|t| *t != module.file) {
                    let first = refs.entry(target).or_insert(line);
                    *first = line.min(*first);
                }
            };
            for u in &scope.uses {
                let target = self.resolve(id, &u.path, 0);
                // A parent re-exporting its child's item is the child's
                // public face, as much a declaration as `mod child;`.
                let re_export = u.public
                    && target
                        .as_ref()
                        .is_some_and(|t| t.starts_with(&self.bases[&module.file]));
                if !re_export {
                    note(target, u.line);
                }
            }
            for (path, line) in &scope.paths {
                note(self.resolve(id, path, 0), *line);
            }
        }
        graph
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
        while let Some(segment) = rest.first() {
            if segment == "super" {
                module = self.modules[module].parent?;
                rest = &rest[1..];
            } else {
                return self.resolve_name(module, segment, &rest[1..], hops, false);
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
