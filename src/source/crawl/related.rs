//! Related reads: what relations name beyond ownership, and the conversion
//! webhook behind a failing conversion.

use super::*;

/// The conversion webhook of the custom resource type `resource` (the
/// CRD's name, `widgets.example.com`): its Service, and whether that
/// Service has a ready endpoint. None when the CRD or its webhook cannot
/// be read.
pub async fn conversion_webhook<R: Reader>(
    reader: &R,
    catalog: &Catalog,
    resource: &str,
) -> Option<String> {
    let crds = catalog.by_kind("apiextensions.k8s.io", "CustomResourceDefinition")?;
    let crd = reader.get(&Read::get(crds, None, resource)).await.ok()??;
    let service = crd.pointer("/spec/conversion/webhook/clientConfig/service")?;
    let ns = service.get("namespace")?.as_str()?;
    let name = service.get("name")?.as_str()?;
    let mut text = format!("its conversion webhook is Service {ns}/{name}");
    let state = match catalog.by_kind("discovery.k8s.io", "EndpointSlice") {
        Some(slices) => {
            let read =
                Read::list(slices, Some(ns)).labels(format!("kubernetes.io/service-name={name}"));
            match reader.list(&read).await {
                Ok(listing) => {
                    let ready = listing
                        .items
                        .iter()
                        .flat_map(|s| {
                            s.get("endpoints")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                        })
                        .filter(|e| {
                            e.pointer("/conditions/ready").and_then(Value::as_bool) != Some(false)
                        })
                        .count();
                    if ready == 0 {
                        ", which has no ready endpoints: start the webhook's pods".to_string()
                    } else {
                        format!(", which has {ready} ready endpoint(s): read the webhook's logs")
                    }
                }
                Err(_) => String::new(),
            }
        }
        None => String::new(),
    };
    text.push_str(&state);
    Some(text)
}

impl<R: Reader> Crawl<'_, R> {
    /// Names the conversion webhook behind each gap a failing conversion
    /// made (a custom resource read through a webhook that does not
    /// answer): its Service and whether that Service has ready endpoints.
    pub async fn explain_conversion_gaps(&mut self) {
        let mut gaps = std::mem::take(&mut self.gaps.incomplete);
        for gap in gaps
            .iter_mut()
            .filter(|g| self.conversion_failed.contains(&g.resource))
        {
            if let Some(more) = conversion_webhook(self.reader, self.catalog, &gap.resource).await {
                gap.error = format!("{}; {more}", gap.error);
            }
        }
        self.gaps.incomplete = gaps;
    }

    /// Follows relations beyond ownership (see [`crate::relations`]): the
    /// relations' read plan, in up to three rounds (an Ingress's Service,
    /// then the pods it selects). What a plan expected and did not find is
    /// recorded as absent (not when the read itself failed, so a forbidden
    /// read never reads as "missing"); related workloads bring their known
    /// edges; namespaces reached for the first time bring their events.
    pub async fn related(&mut self) {
        self.follow(3, |c| {
            crate::relations::reads_for(&c.objects, &c.events, &c.gaps.absent)
        })
        .await;
    }

    /// The Leases of the controllers of objects whose status lags (see
    /// [`crate::relations::lease_reads`]), for an answer that follows no
    /// other relation: the judge reads them to tell a running controller
    /// from a stopped one.
    pub async fn leases(&mut self) {
        self.follow(1, |c| crate::relations::lease_reads(&c.objects))
            .await;
    }

    /// Reads what `plan` asks for, in up to `rounds` rounds.
    async fn follow(
        &mut self,
        rounds: usize,
        plan: impl Fn(&Self) -> Vec<crate::relations::RelatedRead>,
    ) {
        use crate::relations::RelatedRead;
        let mut done: HashSet<RelatedRead> = HashSet::new();
        for _round in 0..rounds {
            let plan: Vec<RelatedRead> = plan(self)
                .into_iter()
                .filter(|r| !done.contains(r))
                .collect();
            if plan.is_empty() {
                return;
            }
            let mut round = Round::default();
            for related in plan {
                for rt in self.types_of(&related.resource) {
                    round.add(&rt, &related);
                }
                done.insert(related);
            }
            let mut new: Vec<Object> = Vec::new();
            let reads: Vec<Read> = round.lists.iter().map(|(r, _)| r.clone()).collect();
            let answered: Vec<(Read, Vec<Object>)> = self.run(reads).await;
            for (read, expect) in &round.lists {
                let Some((_, objects)) = answered.iter().find(|(r, _)| r == read) else {
                    continue; // the read failed: a gap, not an absence
                };
                for name in expect {
                    if !objects.iter().any(|o| o.name() == name) {
                        self.gaps.absent.push(ObjectRef {
                            api_version: read.rt.api_version(),
                            kind: read.rt.kind.clone(),
                            namespace: read.namespace.clone(),
                            name: name.clone(),
                            uid: None,
                        });
                    }
                }
            }
            new.extend(answered.into_iter().flat_map(|(read, objects)| {
                let round = &round;
                objects.into_iter().filter(move |o| round.keeps(&read, o))
            }));
            for (read, got) in self.gets(std::mem::take(&mut round.gets)).await {
                match got {
                    Got::Found(obj) => new.extend(obj.map(|o| *o)),
                    Got::Missing => self.gaps.absent.push(ObjectRef {
                        api_version: read.rt.api_version(),
                        kind: read.rt.kind.clone(),
                        namespace: read.namespace.clone(),
                        name: read.name.clone().unwrap_or_default(),
                        uid: None,
                    }),
                    Got::Failed => {}
                }
            }
            // Related workloads and Services bring their own trees (an
            // autoscaler's Deployment, an Ingress's Service and its pods):
            // known edges only.
            let workloads: Vec<Object> = new
                .iter()
                .filter(|o| {
                    !o.metadata_only && matches!(plan::edges(self.catalog, o), Edges::Reads { .. })
                })
                .cloned()
                .collect();
            self.quiet.extend(
                new.iter()
                    .filter(|o| plan::plainly_well_elsewhere(o))
                    .map(|o| o.uid.clone()),
            );
            self.objects.extend(new);
            if !workloads.is_empty() {
                self.trees(&workloads).await;
            }
            // The events of what was reached, before the next plan needs them.
            self.events(HashMap::new(), false).await;
        }
    }

    /// The types a related read names: one kind (a kind the catalog lacks
    /// says the answer leaned on the list of types), or every namespaced
    /// type (which says so too).
    fn types_of(&mut self, resource: &crate::relations::Resource) -> Vec<ResourceType> {
        use crate::relations::Resource;
        match resource {
            Resource::Kind { api_version, kind } => self
                .type_of(crate::model::group_of(api_version), kind)
                .into_iter()
                .cloned()
                .collect(),
            Resource::EveryNamespacedType => {
                self.leaned_on_types = true;
                self.catalog
                    .types
                    .iter()
                    .filter(|t| t.namespaced && plan::is_searchable(t))
                    .cloned()
                    .collect()
            }
        }
    }
}

/// One round of related reads. Each list once, however many relations ask
/// for it (every Service without endpoints asks for the namespace's
/// workloads), with every name they expect. Lists kept only in part: where
/// a pod template matches, where a name is like one of the names asked
/// for, or (a list read for the names it expects: do a pod's
/// ServiceAccount and Secrets exist?) where it is one of them or close to
/// one; an object any asker would keep is kept, and a list also asked for
/// whole is kept whole.
#[derive(Default)]
struct Round {
    lists: Vec<(Read, Vec<String>)>,
    kept_if: Vec<(Read, Vec<crate::relations::Select>)>,
    whole: Vec<Read>,
    gets: Vec<Read>,
}

impl Round {
    /// The read of `related` in type `rt`.
    fn add(&mut self, rt: &ResourceType, related: &crate::relations::RelatedRead) {
        use crate::relations::Select;
        let ns = related.namespace.as_deref();
        let select = &related.select;
        let mut read = match select {
            Select::Name(name) => Read::get(rt, ns, name),
            Select::Labels(l) => Read::list(rt, ns).labels(l.clone()),
            Select::Fields(f) => Read::list(rt, ns).fields(f.clone()),
            _ => Read::list(rt, ns),
        };
        if related.metadata_only {
            read = read.metadata_only();
        }
        if related.managed_fields {
            read = read.with_managed_fields();
        }
        if let Select::Name(_) = select {
            self.gets.push(read);
            return;
        }
        let keep: Vec<Select> = match select {
            Select::Template(_) | Select::NamedLike(_) => vec![select.clone()],
            Select::All if !related.expect.is_empty() => {
                related.expect.iter().cloned().map(Select::Name).collect()
            }
            _ => Vec::new(),
        };
        if !keep.is_empty() {
            match self.kept_if.iter_mut().find(|(r, _)| *r == read) {
                Some((_, selects)) => selects.extend(keep),
                None => self.kept_if.push((read.clone(), keep)),
            }
        } else if !self.whole.contains(&read) {
            self.whole.push(read.clone());
        }
        match self.lists.iter_mut().find(|(r, _)| *r == read) {
            Some((_, expect)) => expect.extend(related.expect.iter().cloned()),
            None => self.lists.push((read, related.expect.clone())),
        }
    }

    /// Whether `o`, an answer of `read`, is kept.
    fn keeps(&self, read: &Read, o: &Object) -> bool {
        use crate::relations::Select;
        let Some((_, selects)) = self
            .kept_if
            .iter()
            .find(|(r, _)| r == read && !self.whole.contains(r))
        else {
            return true;
        };
        selects.iter().any(|s| match s {
            Select::Template(q) => crate::selector::template_matches(q, o),
            Select::NamedLike(names) => crate::relations::named_like(names, o.name()),
            // The name, or one close to it: what "did you mean" offers for
            // a name that is not there.
            Select::Name(name) => {
                o.name() == name || crate::model::Snapshot::is_close_name(name, o.name())
            }
            _ => true,
        })
    }
}
