//! What one file says, read with `syn`: its module scopes (the file's own
//! module, then each inline `mod x { … }` in it), and in each the `mod x;`
//! declarations, the items it defines, its `use` trees (one path per name
//! they bind) and the paths written in its code, each with its line.
//! Comments and strings are not paths; the tokens of macro calls and
//! attributes, which `syn` leaves unparsed, are searched for `a::b` paths.

use std::collections::BTreeSet;

use proc_macro2::{Spacing, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::visit::{self, Visit};
use syn::{
    Attribute, Expr, ExprLit, Ident, Item, ItemMod, ItemUse, Lit, Meta, UseTree, Visibility,
};

/// One module scope of a file.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    /// For an inline module, its name and the scope it is written in;
    /// `None` for the file's own module (scope 0).
    pub(crate) inline: Option<(String, usize)>,
    /// `mod name;`, each with its `#[path = "…"]` if it has one.
    pub(crate) decls: Vec<(String, Option<String>)>,
    /// The names of the items the scope defines (`fn`, `struct`, …).
    pub(crate) items: BTreeSet<String>,
    pub(crate) uses: Vec<Use>,
    /// Paths of two segments or more written in code, each with its line.
    pub(crate) paths: Vec<(Vec<String>, usize)>,
}

/// One name a `use` binds, or one glob.
#[derive(Debug, PartialEq)]
pub(crate) struct Use {
    /// The full path, as written (`crate::a::b` for `use crate::a::{b}`).
    pub(crate) path: Vec<String>,
    /// The name bound (`d` for `c as d`); `None` for a glob.
    pub(crate) binds: Option<String>,
    /// Whether the `use` is `pub`, `pub(crate)`, ….
    pub(crate) public: bool,
    pub(crate) line: usize,
}

/// A file's scopes, in the order they open: the file's own module first,
/// then each inline module after the scope it is written in.
pub(crate) fn read(src: &str) -> syn::Result<Vec<Scope>> {
    let file = syn::parse_file(src)?;
    let mut reader = Reader {
        scopes: vec![Scope::default()],
        current: 0,
    };
    for attr in &file.attrs {
        reader.visit_attribute(attr);
    }
    reader.module_items(&file.items);
    Ok(reader.scopes)
}

/// The 1-based line a span starts on.
pub(crate) fn line(span: Span) -> usize {
    span.start().line
}

struct Reader {
    scopes: Vec<Scope>,
    /// The scope being read.
    current: usize,
}

impl Reader {
    fn scope(&mut self) -> &mut Scope {
        &mut self.scopes[self.current]
    }

    /// A module's own items: their names are defined in the current scope
    /// (items inside function bodies are not).
    fn module_items(&mut self, items: &[Item]) {
        for item in items {
            if let Some(name) = defined_name(item) {
                self.scope().items.insert(name);
            }
            self.visit_item(item);
        }
    }

    fn note_path<'a>(&mut self, idents: impl IntoIterator<Item = &'a Ident>) {
        let idents: Vec<&Ident> = idents.into_iter().collect();
        if idents.len() >= 2 {
            let path = idents.iter().map(|i| name(i)).collect();
            let line = line(idents[0].span());
            self.scope().paths.push((path, line));
        }
    }
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item_mod(&mut self, module: &'ast ItemMod) {
        for attr in &module.attrs {
            self.visit_attribute(attr);
        }
        let name = name(&module.ident);
        match &module.content {
            Some((_, items)) => {
                let outer = self.current;
                self.scopes.push(Scope {
                    inline: Some((name, outer)),
                    ..Scope::default()
                });
                self.current = self.scopes.len() - 1;
                self.module_items(items);
                self.current = outer;
            }
            None => {
                let path = path_attr(&module.attrs);
                self.scope().decls.push((name, path));
            }
        }
    }

    fn visit_item_use(&mut self, item: &'ast ItemUse) {
        // `use ::std::…` names another crate.
        if item.leading_colon.is_some() {
            return;
        }
        let public = !matches!(item.vis, Visibility::Inherited);
        let mut found = Vec::new();
        use_tree(&item.tree, Vec::new(), &mut found);
        for (path, binds, span) in found {
            self.scope().uses.push(Use {
                path,
                binds,
                public,
                line: line(span),
            });
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            self.note_path(path.segments.iter().map(|s| &s.ident));
        }
        visit::visit_path(self, path);
    }

    /// The tokens `syn` does not parse: macro calls and definitions,
    /// attribute arguments.
    fn visit_token_stream(&mut self, tokens: &'ast TokenStream) {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(group) => self.visit_token_stream(&group.stream()),
                // Not a path's later segment, nor `::std`.
                TokenTree::Ident(first) if i < 2 || !path_sep(&trees, i - 2) => {
                    let mut idents = vec![first];
                    while path_sep(&trees, i + 1) {
                        let Some(TokenTree::Ident(next)) = trees.get(i + 3) else {
                            break;
                        };
                        idents.push(next);
                        i += 3;
                    }
                    self.note_path(idents);
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// Whether `trees[i..]` starts with `::`.
fn path_sep(trees: &[TokenTree], i: usize) -> bool {
    match (trees.get(i), trees.get(i + 1)) {
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) => {
            a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
        }
        _ => false,
    }
}

/// An identifier as a name (`r#type` is `type`).
fn name(ident: &Ident) -> String {
    ident.unraw().to_string()
}

/// The name an item defines in its module, if it defines one.
fn defined_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(i) => &i.ident,
        Item::Enum(i) => &i.ident,
        Item::Fn(i) => &i.sig.ident,
        Item::Macro(i) => i.ident.as_ref()?,
        Item::Static(i) => &i.ident,
        Item::Struct(i) => &i.ident,
        Item::Trait(i) => &i.ident,
        Item::TraitAlias(i) => &i.ident,
        Item::Type(i) => &i.ident,
        Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(name(ident))
}

/// The file a `#[path = "…"]` attribute names.
fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        Meta::NameValue(pair) if pair.path.is_ident("path") => match &pair.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// A use tree under `prefix`, as one path per name it binds (and one per
/// glob), each with the span of its last part.
fn use_tree(
    tree: &UseTree,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>, Span)>,
) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(name(&p.ident));
            use_tree(&p.tree, prefix, out);
        }
        UseTree::Name(n) => {
            // `a::{self}` binds `a`.
            if n.ident != "self" || prefix.is_empty() {
                prefix.push(name(&n.ident));
            }
            let binds = prefix.last().cloned();
            out.push((prefix, binds, n.ident.span()));
        }
        UseTree::Rename(r) => {
            if r.ident != "self" || prefix.is_empty() {
                prefix.push(name(&r.ident));
            }
            // `as _` binds `_`, which names nothing: the caller skips it.
            out.push((prefix, Some(name(&r.rename)), r.rename.span()));
        }
        UseTree::Glob(g) => out.push((prefix, None, g.star_token.spans[0])),
        UseTree::Group(g) => {
            for tree in &g.items {
                use_tree(tree, prefix.clone(), out);
            }
        }
    }
}
