//! Ingresses (networking.k8s.io/v1): an address written by an ingress
//! controller, or none yet (and after a while, doubt that one is running).

use crate::verdict::Judged;
use jiff::SignedDuration;

use crate::model::{Object, age};
use crate::verdict::reason::Network;
use crate::verdict::{Judgement, Verdict};

/// How long an ingress controller may take to write an address before the
/// wait for one is a failure (is one running for its class?).
const ADDRESS_GRACE: SignedDuration = SignedDuration::from_mins(10);

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let addresses: Vec<&str> = obj
        .at("/status/loadBalancer/ingress")
        .and_then(|v| v.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|i| {
                    i.get("ip")
                        .or_else(|| i.get("hostname"))
                        .and_then(|v| v.as_str())
                })
                .collect()
        })
        .unwrap_or_default();
    if !addresses.is_empty() {
        return Some(Judgement::new(
            Verdict::Converged,
            Network::Address,
            format!("served at {}", addresses.join(", ")),
        ));
    }
    let class = obj
        .str("/spec/ingressClassName")
        .map(|c| format!(" of class {c}"))
        .unwrap_or_default();
    if let Some(created) = obj.created
        && snap.now.duration_since(created) >= ADDRESS_GRACE
    {
        return Some(
            Judgement::new(
                Verdict::Failed,
                Network::NoAddress,
                format!(
                    "no ingress controller{class} has written an address in {}; is one running?",
                    age(snap.now, created)
                ),
            )
            .since(obj.created),
        );
    }
    let so_far = obj
        .created
        .map(|c| format!(" ({} so far)", age(snap.now, c)))
        .unwrap_or_default();
    Some(
        Judgement::new(
            Verdict::Progressing,
            Network::PendingAddress,
            format!("waiting for an ingress controller{class} to write an address{so_far}"),
        )
        .since(obj.created),
    )
}
