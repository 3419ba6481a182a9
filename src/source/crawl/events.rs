//! Events: the first page of each namespace's, started beside the first
//! reads, then by namespace or object as the answer needs.

use super::*;

/// The first page of each namespace's events, read while the crawl runs.
pub async fn first_event_pages<R: Reader>(
    reader: &R,
    catalog: &Catalog,
    namespaces: &[String],
) -> HashMap<String, Result<Page, ApiError>> {
    let Some(rt) = catalog.by_kind("", "Event") else {
        return HashMap::new();
    };
    let pages = namespaces.iter().map(|ns| async move {
        let read = Read::list(rt, Some(ns));
        (ns.clone(), reader.page(&read, PAGE, None).await)
    });
    futures::future::join_all(pages).await.into_iter().collect()
}

impl<R: Reader> Crawl<'_, R> {
    /// A list of events that answered: its events are the answer's, and
    /// its watch starts from it.
    pub(super) fn take_events(&mut self, read: Read, listing: crate::source::read::Listing) {
        let events: Vec<Event> = listing.items.iter().filter_map(Event::from_value).collect();
        let seed = || Seed::events(listing.resource_version, events.clone());
        self.watch_from(read, seed);
        self.events.extend(events);
    }

    /// The events of everything found. Per namespace: `first` is the first
    /// page of its events when it was started early. A namespace whose
    /// events fit one page is read whole; a busy one with a small tree is
    /// read object by object (see [`plan::SMALL_TREE`]). Objects without a
    /// namespace get theirs by uid.
    pub async fn events(
        &mut self,
        mut first: HashMap<String, Result<Page, ApiError>>,
        all_namespaces: bool,
    ) {
        let Some(rt) = self.catalog.by_kind("", "Event").cloned() else {
            return;
        };
        if all_namespaces && self.events_of == EventsOf::Every {
            let read = Read::list(&rt, None);
            match self.reader.list(&read).await {
                Ok(listing) => self.take_events(read, listing),
                Err(e) => {
                    self.failed += 1;
                    self.fail(&read, e);
                }
            }
            self.tried += 1;
            return;
        }
        // Per namespace, the read of each object's own events, by its uid.
        let mut by_ns: BTreeMap<String, Vec<(String, Read)>> = BTreeMap::new();
        let mut cluster: Vec<(String, Read)> = Vec::new();
        for obj in &self.objects {
            if self.events_read.uids.contains(&obj.uid)
                || self.quiet.contains(&obj.uid)
                || (self.events_of == EventsOf::Unhealthy && !plan::wants_events(obj))
            {
                continue;
            }
            let read = (obj.uid.clone(), plan::events_of(&rt, obj));
            match obj.namespace() {
                Some(ns) => by_ns.entry(ns.to_string()).or_default().push(read),
                None => cluster.push(read),
            }
        }
        // `why` on a name that is not there: its namespace's events are
        // all that is left of it.
        if self.events_of == EventsOf::Every {
            for ns in first.keys() {
                by_ns.entry(ns.clone()).or_default();
            }
        }
        let mut by_uid: Vec<(String, Read)> = Vec::new();
        let mut pages: Vec<(Read, Option<String>)> = Vec::new();
        let mut found: Vec<Event> = Vec::new();
        // Each namespace list read, and what its watch starts from: the
        // page, where it held all of the namespace's events.
        let mut watch: Vec<(Read, Option<Seed>)> = Vec::new();
        for (ns, objects) in by_ns {
            let early = first.contains_key(&ns);
            let how = plan::events_first(
                self.events_read.namespaces.contains(&ns),
                self.events_read.busy.contains(&ns),
                early,
                self.events_of == EventsOf::Every,
                objects.len(),
            );
            let read = Read::list(&rt, Some(&ns));
            let page = match (how, first.remove(&ns)) {
                (plan::EventsFirst::Had, _) => continue,
                (plan::EventsFirst::ByUid, _) => {
                    by_uid.extend(objects);
                    continue;
                }
                (plan::EventsFirst::Page, Some(page)) => page,
                (plan::EventsFirst::Page, None) => self.reader.page(&read, PAGE, None).await,
            };
            self.tried += 1;
            match page {
                Ok(page) => {
                    let mut seed = None;
                    let events = || page.items.iter().filter_map(Event::from_value);
                    match plan::events_then(page.continue_token.is_some(), objects.len()) {
                        plan::EventsThen::Whole => {
                            let events: Vec<Event> = events().collect();
                            if self.seeding {
                                seed = Seed::events(page.resource_version.clone(), events.clone());
                            }
                            found.extend(events);
                            self.events_read.namespaces.insert(ns);
                        }
                        plan::EventsThen::Newest => found.extend(events()),
                        // The page is dropped: each object's own are asked for.
                        plan::EventsThen::ByUid => {
                            by_uid.extend(objects);
                            self.events_read.busy.insert(ns);
                        }
                        plan::EventsThen::Every => {
                            found.extend(events());
                            pages.push((read.clone(), page.continue_token.clone()));
                            self.events_read.namespaces.insert(ns);
                        }
                    }
                    watch.push((read, seed));
                }
                Err(e) => {
                    self.failed += 1;
                    self.fail(&read, e);
                }
            }
        }
        by_uid.extend(cluster.into_iter().take(plan::CLUSTER_EVENTS_AT_MOST));
        let by_uid: Vec<Read> = by_uid
            .into_iter()
            .map(|(uid, read)| {
                self.events_read.uids.insert(uid);
                read
            })
            .collect();
        // The rest of busy namespaces, page by page.
        for (read, mut token) in pages {
            while let Some(t) = token.take() {
                self.tried += 1;
                match self.reader.page(&read, PAGE, Some(&t)).await {
                    Ok(page) => {
                        found.extend(page.items.iter().filter_map(Event::from_value));
                        token = page.continue_token;
                    }
                    Err(e) => {
                        self.failed += 1;
                        self.fail(&read, e);
                    }
                }
            }
        }
        let (by_uid, mut kept) = self.events_by_uid(by_uid).await;
        self.events.extend(found.into_iter().chain(by_uid));
        // --watch and wait see the events of every namespace in the answer
        // from now on, also of objects that turn unhealthy later: the
        // namespace's list where it was read, else a watch that starts now.
        let mut namespaces: BTreeSet<String> = self
            .objects
            .iter()
            .filter_map(|o| o.namespace().map(str::to_string))
            .collect();
        for (read, seed) in watch {
            namespaces.remove(read.namespace.as_deref().unwrap_or_default());
            self.watch_from(read, || seed);
        }
        for ns in namespaces {
            let whole = Read::list(&rt, Some(&ns));
            if !self.watching(&whole) {
                let seed = kept.remove(&ns);
                self.watch_from(whole.starting_now(), || {
                    seed.and_then(|(rv, events)| Seed::events(rv, events))
                });
            }
        }
    }
}

impl<R: Reader> Crawl<'_, R> {
    /// The events of each object read by uid, and per namespace what they
    /// were (with the newest version of those lists): the watch of the
    /// namespace that starts now starts from them, so that a live answer
    /// keeps the refusals a verdict reads (a CronJob's FailedCreate), not
    /// only what happens after it began.
    async fn events_by_uid(&mut self, reads: Vec<Read>) -> (Vec<Event>, ByNamespace) {
        let mut found = Vec::new();
        let mut kept = ByNamespace::new();
        for (read, listing) in self.lists(reads).await {
            let events: Vec<Event> = listing.items.iter().filter_map(Event::from_value).collect();
            if let Some(ns) = &read.namespace {
                let entry = kept.entry(ns.clone()).or_default();
                // The newest version of the namespace's lists: the watch
                // misses nothing after it.
                if newer(&listing.resource_version, &entry.0) {
                    entry.0 = listing.resource_version.clone();
                }
                entry.1.extend(events.iter().cloned());
            }
            found.extend(events);
        }
        (found, kept)
    }
}

/// Per namespace, a version and the events read up to it.
type ByNamespace = BTreeMap<String, (String, Vec<Event>)>;

/// Whether resource version `a` is newer than `b` (empty: none). Versions
/// are opaque, but etcd's are numbers; a version that is not one is taken
/// only when there is none.
fn newer(a: &str, b: &str) -> bool {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(a), Ok(b)) => a > b,
        _ => b.is_empty(),
    }
}
