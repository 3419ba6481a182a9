//! CertificateSigningRequests (certificates.k8s.io): an object that waits
//! for someone else. Its status says only what others did to it: an
//! approver's `Approved` or `Denied`, a signer's `Failed` or its
//! certificate. Nothing written is not "nothing to reconcile": it waits
//! for approval; approved without a certificate, it waits for its signer,
//! and past [`NO_PROGRESS_GRACE`] that signer is not answering.

use crate::model::{Object, age};
use crate::verdict::conditions::cite;
use crate::verdict::conventions::NO_PROGRESS_GRACE;
use crate::verdict::{Judged, Judgement, Reason, Verdict};

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let signer = obj.str("/spec/signerName").unwrap_or("its signer");
    for type_ in ["Denied", "Failed"] {
        if let Some(c) = obj.condition(type_).filter(|c| c.is_true()) {
            return Some(
                Judgement::new(Verdict::Failed, Reason::of(type_), cite(&c))
                    .since(c.last_transition_time),
            );
        }
    }
    if obj
        .str("/status/certificate")
        .is_some_and(|c| !c.is_empty())
    {
        return Some(Judgement::new(
            Verdict::Converged,
            Reason::of("Issued"),
            format!("certificate issued by {signer}"),
        ));
    }
    let Some(approved) = obj.condition("Approved").filter(|c| c.is_true()) else {
        let waited = obj
            .created
            .map(|c| format!(" for {}", age(snap.now, c)))
            .unwrap_or_default();
        return Some(
            Judgement::new(
                Verdict::Progressing,
                Reason::of("WaitingForApproval"),
                format!("waiting{waited} for an approver (for {signer}): approve or deny it"),
            )
            .since(obj.created),
        );
    };
    let since = approved.last_transition_time;
    let for_ = since.map(|t| snap.now.duration_since(t));
    if for_.is_some_and(|d| d > NO_PROGRESS_GRACE) {
        return Some(
            Judgement::new(
                Verdict::Failed,
                Reason::of("SignerNotResponding"),
                format!(
                    "approved {} ago, and {signer} has issued no certificate: is its signer running?",
                    since.map(|t| age(snap.now, t)).unwrap_or_default()
                ),
            )
            .since(since),
        );
    }
    Some(
        Judgement::new(
            Verdict::Progressing,
            Reason::of("Approved"),
            format!("approved; waiting for {signer} to issue the certificate"),
        )
        .since(since),
    )
}
