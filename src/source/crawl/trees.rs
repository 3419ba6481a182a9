//! The trees of an answer: children by known edges or the metadata-only
//! fallback, full objects for metadata-only nodes, the owners above, who
//! uses a target, and the context verdicts need.

use super::*;

impl<R: Reader> Crawl<'_, R> {
    /// Finds the descendants of `roots`: known edges first; kinds with
    /// unknown edges search metadata-only lists of every type in scope.
    pub async fn trees(&mut self, roots: &[Object]) {
        let mut unknown: Vec<Object> = Vec::new();
        let mut frontier: Vec<Object> = roots.to_vec();
        let mut expanded: HashSet<String> = HashSet::new();
        while !frontier.is_empty() {
            let mut reads = Vec::new();
            let mut parents: Vec<(String, bool)> = Vec::new();
            for obj in std::mem::take(&mut frontier) {
                if !expanded.insert(obj.uid.clone()) {
                    continue;
                }
                match plan::edges(self.catalog, &obj) {
                    Edges::Leaf => {}
                    Edges::Unserved => self.leaned_on_types = true,
                    Edges::Unknown => unknown.push(obj),
                    Edges::Reads {
                        reads: r,
                        covers_grandchildren,
                    } => {
                        for read in r {
                            if !reads.contains(&read) {
                                reads.push(read);
                            }
                        }
                        parents.push((obj.uid.clone(), covers_grandchildren));
                    }
                }
            }
            let found: Vec<Object> = self
                .run(reads)
                .await
                .into_iter()
                .flat_map(|(_, objects)| objects)
                .collect();
            for (parent, covers) in parents {
                for child in found
                    .iter()
                    .filter(|o| o.owners.iter().any(|r| r.uid == parent))
                {
                    if covers {
                        expanded.insert(child.uid.clone());
                    } else {
                        frontier.push(child.clone());
                    }
                }
            }
            self.objects.extend(found);
        }
        if !unknown.is_empty() {
            self.fallback(&unknown).await;
        }
    }

    /// Children of kinds with unknown edges: metadata-only lists of every
    /// listable type where children can live, matched by owner uid, then
    /// the full objects of the nodes found.
    async fn fallback(&mut self, roots: &[Object]) {
        let cluster_wide = roots.iter().any(|o| o.namespace().is_none());
        let namespaces: BTreeSet<&str> = roots.iter().filter_map(|o| o.namespace()).collect();
        let namespaces: Vec<&str> = namespaces.into_iter().collect();
        let reads = plan::fallback(self.catalog, &namespaces, cluster_wide, self.swept.across);
        self.leaned_on_types = true;
        self.search_children(roots, reads, Search::EveryType).await;
    }

    /// The children of the custom resources among `targets` of a `status`
    /// or `wait`, where they most likely are (see
    /// [`plan::likely_children`]): their tree's verdict reads them.
    pub async fn likely_trees(&mut self, targets: &[Object]) {
        let roots: Vec<Object> = targets
            .iter()
            .filter(|o| !o.metadata_only && matches!(plan::edges(self.catalog, o), Edges::Unknown))
            .cloned()
            .collect();
        if roots.is_empty() {
            return;
        }
        let cluster_wide = roots.iter().any(|o| o.namespace().is_none());
        let namespaces: BTreeSet<&str> = roots.iter().filter_map(|o| o.namespace()).collect();
        let namespaces: Vec<&str> = namespaces.into_iter().collect();
        let groups: BTreeSet<&str> = roots.iter().map(|o| o.group()).collect();
        let reads = plan::likely_children(self.catalog, &groups, &namespaces, cluster_wide);
        self.search_children(&roots, reads, Search::Likely).await;
    }

    /// The descendants of `roots` among what `reads` list (metadata only),
    /// matched by owner uid, then read in full.
    async fn search_children(&mut self, roots: &[Object], reads: Vec<Read>, search: Search) {
        // What a sweep listed already is not listed again: its owned
        // objects are here, and its roots are no one's children.
        let (known, reads): (Vec<Read>, Vec<Read>) =
            reads.into_iter().partition(|r| self.swept.covers(r));
        let reads = plan::firsts_of_group_versions_first(reads);
        crate::log::why_requests(&fallback_said(roots, reads.len(), known.len(), search));
        // Not watched: only what the tree holds is kept current (below).
        let mut listed: Vec<Object> = Vec::new();
        let mut data_reads: Vec<(Read, Option<Seed>)> = Vec::new();
        for (read, listing) in self.lists(reads).await {
            let objects = self.convert_all(listing.items, &read);
            if crate::source::read::is_data_type(&read.rt) {
                let seed = self
                    .seeding
                    .then(|| Seed::objects(listing.resource_version, objects.clone()));
                data_reads.push((read, seed.flatten()));
            }
            listed.extend(objects);
        }
        let swept: Vec<&Owned> = self
            .swept
            .owned
            .iter()
            .filter(|o| known.iter().any(|r| o.listed_by(r)))
            .collect();
        // Owner index over the swept objects (0..n) and the listed ones
        // (n..), then the subtree of every root.
        let n = swept.len();
        let uid = |i: usize| match i.checked_sub(n) {
            None => swept[i].uid(),
            Some(j) => listed[j].uid.as_str(),
        };
        let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, obj) in swept.iter().enumerate() {
            for owner in obj.owners() {
                children.entry(owner).or_default().push(i);
            }
        }
        for (j, obj) in listed.iter().enumerate() {
            for owner in &obj.owners {
                children.entry(owner.uid.as_str()).or_default().push(n + j);
            }
        }
        let mut keep: HashSet<usize> = HashSet::new();
        let mut seen: HashSet<&str> = roots.iter().map(|r| r.uid.as_str()).collect();
        let mut stack: Vec<&str> = roots.iter().map(|r| r.uid.as_str()).collect();
        while let Some(parent) = stack.pop() {
            for &child in children.get(parent).into_iter().flatten() {
                if seen.insert(uid(child)) {
                    keep.insert(child);
                    stack.push(uid(child));
                }
            }
        }
        let mut nodes: Vec<Object> = (0..n)
            .filter(|i| keep.contains(i))
            .filter_map(|i| swept[i].object())
            .collect();
        nodes.extend(
            listed
                .into_iter()
                .enumerate()
                .filter(|(j, _)| keep.contains(&(n + j)))
                .map(|(_, o)| o),
        );
        // Secrets and ConfigMaps in the tree are only ever metadata: their
        // metadata lists are what --watch keeps current, where they hold
        // one of the nodes.
        for (read, seed) in data_reads {
            if nodes
                .iter()
                .any(|n| n.kind() == read.rt.kind && n.group() == read.rt.group && read.holds(n))
            {
                self.watch_from(read, || seed);
            }
        }
        self.full_objects(&nodes).await;
        self.objects.extend(nodes);
    }

    /// Full objects for metadata-only ones: a list of the type in the
    /// namespace when there are many, else a GET each. Secrets and
    /// ConfigMaps stay metadata-only.
    pub(super) async fn full_objects(&mut self, nodes: &[Object]) {
        let mut groups: BTreeMap<(String, String, Option<String>), Vec<&Object>> = BTreeMap::new();
        for obj in nodes.iter().filter(|o| {
            o.metadata_only && !matches!((o.group(), o.kind()), ("", "Secret") | ("", "ConfigMap"))
        }) {
            groups
                .entry((
                    obj.group().to_string(),
                    obj.kind().to_string(),
                    obj.namespace().map(str::to_string),
                ))
                .or_default()
                .push(obj);
        }
        let mut lists = Vec::new();
        let mut gets = Vec::new();
        for ((group, kind, ns), objs) in groups {
            let Some(rt) = self.type_of(&group, &kind) else {
                continue;
            };
            if objs.len() > plan::GETS_AT_MOST {
                lists.push(Read::list(rt, ns.as_deref()));
            } else {
                gets.extend(
                    objs.into_iter()
                        .map(|o| Read::get(rt, ns.as_deref(), o.name())),
                );
            }
        }
        let wanted: HashSet<&str> = nodes.iter().map(|o| o.uid.as_str()).collect();
        for (_, objects) in self.run(lists).await {
            let keep: Vec<Object> = objects
                .into_iter()
                .filter(|o| wanted.contains(o.uid.as_str()))
                .collect();
            self.objects.extend(keep);
        }
        for (_, got) in self.gets(gets).await {
            if let Got::Found(Some(obj)) = got {
                self.objects.push(*obj);
            }
        }
    }

    /// The chain of owners above each target, up to its root. An owner that
    /// is gone, or replaced by another object of the same name, is recorded
    /// as absent: a dangling reference. Each level is read concurrently; a
    /// chain longer than [`OWNER_DEPTH`] is cut, and the cut is a gap.
    pub async fn owners(&mut self, targets: &[Object]) {
        let mut frontier: Vec<Object> = targets.to_vec();
        let mut seen: HashSet<String> = frontier.iter().map(|o| o.uid.clone()).collect();
        for _ in 0..OWNER_DEPTH {
            let mut gets: Vec<(Read, ObjectRef)> = Vec::new();
            for obj in &frontier {
                for owner in &obj.owners {
                    if !seen.insert(owner.uid.clone()) {
                        continue;
                    }
                    let id = ObjectRef {
                        api_version: owner.api_version.clone(),
                        kind: owner.kind.clone(),
                        namespace: None,
                        name: owner.name.clone(),
                        uid: Some(owner.uid.clone()),
                    };
                    let Some(rt) = self.type_of(id.group(), &owner.kind) else {
                        self.gap(Incomplete {
                            resource: format!("{} ({})", owner.kind, owner.api_version),
                            namespace: None,
                            error: "type not served".into(),
                        });
                        continue;
                    };
                    let ns = obj.namespace().filter(|_| rt.namespaced);
                    gets.push((
                        Read::get(rt, ns, &owner.name),
                        ObjectRef {
                            namespace: ns.map(str::to_string),
                            ..id
                        },
                    ));
                }
            }
            if gets.is_empty() {
                return;
            }
            let (reads, ids): (Vec<Read>, Vec<ObjectRef>) = gets.into_iter().unzip();
            let mut next = Vec::new();
            for ((_, got), id) in self.gets(reads).await.into_iter().zip(ids) {
                match got {
                    Got::Found(Some(o)) if Some(&o.uid) == id.uid.as_ref() => next.push(*o),
                    Got::Found(_) | Got::Missing => self.gaps.absent.push(id),
                    Got::Failed => {}
                }
            }
            self.objects.extend(next.iter().cloned());
            frontier = next;
        }
        if frontier.iter().any(|o| !o.owners.is_empty()) {
            self.gap(Incomplete {
                resource: "owner chain".into(),
                namespace: frontier
                    .first()
                    .and_then(|o| o.namespace())
                    .map(str::to_string),
                error: format!("cut after {OWNER_DEPTH} levels of owners"),
            });
        }
    }

    /// Who uses each target that pods name or run on (a ConfigMap,
    /// Secret, ServiceAccount, claim, PriorityClass or Node): the pods (one
    /// list per namespace, a node's by field selector), kept only where
    /// they use it, and the owners above them. Secrets are not read here:
    /// the pods are, and they name them.
    pub async fn users(&mut self, targets: &[Object], scope: Option<&str>) {
        let Some(rt) = self.type_of("", "Pod") else {
            return;
        };
        let mut reads: Vec<(Read, Vec<&Object>)> = Vec::new();
        for t in targets {
            let Some(where_) = crate::relations::pods_to_read(t, scope) else {
                continue;
            };
            let mut read = Read::list(rt, where_.namespace.as_deref());
            if let Some(f) = where_.fields {
                read = read.fields(f);
            }
            match reads.iter_mut().find(|(r, _)| *r == read) {
                Some((_, of)) => of.push(t),
                None => reads.push((read, vec![t])),
            }
        }
        if reads.is_empty() {
            return;
        }
        let lists: Vec<Read> = reads.iter().map(|(r, _)| r.clone()).collect();
        let answered = self.run(lists).await;
        let have: HashSet<&str> = self.objects.iter().map(|o| o.uid.as_str()).collect();
        let mut users: Vec<Object> = Vec::new();
        for (read, pods) in answered {
            let Some((_, of)) = reads.iter().find(|(r, _)| *r == read) else {
                continue;
            };
            users.extend(pods.into_iter().filter(|p| {
                !have.contains(p.uid.as_str())
                    && of.iter().any(|t| crate::relations::uses(p, t).is_some())
            }));
        }
        self.owners(&users).await;
        self.objects.extend(users);
    }

    /// What verdicts need besides the targets (see [`plan::context`]).
    pub async fn context(&mut self, targets: &[Object], swept: bool) {
        let reads = plan::context(self.catalog, targets, swept);
        for (_, objects) in self.run(reads).await {
            self.objects.extend(objects);
        }
    }
}

/// Which types a search for children lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Search {
    /// Every type where a child can be (`tree`, `why`).
    EveryType,
    /// The types of the owners' groups and those operators make (`status`).
    Likely,
}

/// What `-v 6` says before the fallback's lists: whose children they
/// look for, and why every type.
fn fallback_said(roots: &[Object], lists: usize, swept: usize, search: Search) -> String {
    let mut kinds: Vec<String> = roots
        .iter()
        .map(|o| match o.group() {
            "" => o.kind().to_string(),
            group => format!("{}.{group}", o.kind()),
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    let more = match swept {
        0 => String::new(),
        n => format!(", and {n} the sweep listed already are searched"),
    };
    let which = match search {
        Search::EveryType => "every type where one can be",
        Search::Likely => {
            "the types of its API group and the built-in kinds operators make (for its tree's verdict)"
        }
    };
    format!(
        "children of {}: no kind of child is known, so {lists} lists of {which} are read (metadata only) and matched by owner reference{more}",
        kinds.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_says_whose_children_it_lists_every_type_for() {
        let root = |kind: &str, api: &str| {
            Object::from_value(serde_json::json!({"apiVersion": api, "kind": kind,
                "metadata": {"name": "x", "namespace": "shop", "uid": kind}}))
            .unwrap()
        };
        let roots = [
            root("Widget", "example.com/v1"),
            root("Widget", "example.com/v1"),
            root("ClusterRole", "rbac.authorization.k8s.io/v1"),
        ];
        assert_eq!(
            fallback_said(&roots, 88, 0, Search::EveryType),
            "children of ClusterRole.rbac.authorization.k8s.io, Widget.example.com: no kind of child is known, so 88 lists of every type where one can be are read (metadata only) and matched by owner reference"
        );
        assert!(
            fallback_said(&roots[..1], 3, 85, Search::EveryType)
                .ends_with("owner reference, and 85 the sweep listed already are searched")
        );
    }
}
