//! Cycles in a graph of files that refer to each other: its strongly
//! connected components (Tarjan's algorithm), and in each component the
//! shortest cycle through each of its files, so that every file caught in
//! one is named in a chain a reader can follow.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::PathBuf;

/// Each file, with each file it refers to and the first line where it does.
pub(crate) type Graph = BTreeMap<PathBuf, BTreeMap<PathBuf, usize>>;

/// Files that refer to each other in a ring: each file with the line where
/// it refers to the next; the last refers to the first. It starts at its
/// least file, so one ring has one spelling.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cycle(pub(crate) Vec<(PathBuf, usize)>);

impl fmt::Display for Cycle {
    /// `a.rs:12 → b.rs:40 → c.rs:7 → a.rs`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (file, line) in &self.0 {
            write!(f, "{}:{line} → ", file.display())?;
        }
        write!(f, "{}", self.0[0].0.display())
    }
}

/// Every cycle of `graph` worth naming: for each file in a strongly
/// connected component, the shortest cycle through it; each cycle once.
pub(crate) fn cycles(graph: &Graph) -> BTreeSet<Cycle> {
    let mut files: BTreeSet<&PathBuf> = graph.keys().collect();
    files.extend(graph.values().flat_map(|refs| refs.keys()));
    let files: Vec<&PathBuf> = files.into_iter().collect();
    let index = |file: &PathBuf| files.binary_search(&file).unwrap();
    let next: Vec<Vec<usize>> = files
        .iter()
        .map(|f| {
            graph
                .get(*f)
                .map_or(Vec::new(), |refs| refs.keys().map(index).collect())
        })
        .collect();
    let mut found = BTreeSet::new();
    for component in components(&next) {
        if component.len() < 2 {
            continue;
        }
        for &start in &component {
            let mut ring = shortest_cycle(&next, &component, start);
            // Turned to start at its least file (the least index).
            let least = (0..ring.len()).min_by_key(|&i| ring[i]).unwrap();
            ring.rotate_left(least);
            let cycle = (0..ring.len())
                .map(|i| {
                    let (from, to) = (files[ring[i]], files[ring[(i + 1) % ring.len()]]);
                    (from.clone(), graph[from][to])
                })
                .collect();
            found.insert(Cycle(cycle));
        }
    }
    found
}

/// The strongly connected components of the graph whose node `v` has the
/// edges `next[v]` (Tarjan's algorithm).
fn components(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut tarjan = Tarjan {
        next,
        order: vec![None; next.len()],
        low: vec![0; next.len()],
        on_stack: vec![false; next.len()],
        stack: Vec::new(),
        visited: 0,
        components: Vec::new(),
    };
    for v in 0..next.len() {
        if tarjan.order[v].is_none() {
            tarjan.visit(v);
        }
    }
    tarjan.components
}

struct Tarjan<'g> {
    next: &'g [Vec<usize>],
    /// The order in which the search reached each node.
    order: Vec<Option<usize>>,
    /// The least order reachable from each node through the search tree
    /// and one edge back onto the stack.
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    visited: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.order[v] = Some(self.visited);
        self.low[v] = self.visited;
        self.visited += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        let next = self.next;
        for &w in &next[v] {
            match self.order[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(order) if self.on_stack[w] => self.low[v] = self.low[v].min(order),
                Some(_) => {}
            }
        }
        // v is the first node of its component the search reached: the
        // nodes above it on the stack are the component.
        if self.order[v] == Some(self.low[v]) {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            self.components.push(component);
        }
    }
}

/// The shortest cycle from `start` back to itself inside `component`
/// (breadth-first), as its nodes from `start` on.
fn shortest_cycle(next: &[Vec<usize>], component: &[usize], start: usize) -> Vec<usize> {
    let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &next[v] {
            if w == start {
                // v, then each node's predecessor back to start.
                let mut ring = vec![v];
                while let Some(&before) = came_from.get(ring.last().unwrap()) {
                    ring.push(before);
                }
                ring.reverse();
                return ring;
            }
            if component.binary_search(&w).is_ok() && !came_from.contains_key(&w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("every node of a component is on a cycle inside it")
}
