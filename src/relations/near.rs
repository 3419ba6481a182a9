//! A selector that matches nothing often has a typo: the label the pods
//! carry that is one or two edits away (`app=payment` vs `app=payments`).

use crate::model::{Object, Snapshot, edits};
use crate::selector;

/// `pods carry app=payments (e.g. Pod/payments-0), the selector asks for
/// app=payment`, when the selector matches no pod in the snapshot but a
/// label nearly matches.
pub fn near_miss(snap: &Snapshot, obj: &Object) -> Option<String> {
    let sel = super::selector_of(obj)?;
    let pods: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| o.kind() == "Pod" && o.group().is_empty() && o.namespace() == obj.namespace())
        .collect();
    if pods.iter().any(|p| selector::matches(&sel, &p.labels)) {
        return None;
    }
    let wanted = sel.get("matchLabels")?.as_object()?;
    let mut best: Option<(usize, String)> = None;
    for (key, value) in wanted {
        let value = value.as_str()?;
        for pod in &pods {
            for (k, v) in &pod.labels {
                let distance = if k == key && v != value {
                    edits::within(v, value, 2)
                } else if k != key && v == value {
                    edits::within(k, key, 2)
                } else {
                    continue;
                };
                let Some(distance) = distance else {
                    continue;
                };
                if best.as_ref().is_none_or(|(d, _)| distance < *d) {
                    best = Some((
                        distance,
                        format!(
                            "pods carry {k}={v} (e.g. Pod/{}), the selector asks for {key}={value}",
                            pod.name()
                        ),
                    ));
                }
            }
        }
    }
    best.map(|(_, text)| text)
}
