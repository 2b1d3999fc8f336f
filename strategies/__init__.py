"""Hypothesis strategies for the vnext contract, one module per area (compose them, do not copy them).

* ``ids``: portable identities, hostile strings; ``json_values``: plain JSON and the
  byte-level malformed-JSON classes; ``cases``: ``Rejection`` / ``MalformedJson`` and
  JSON path helpers.
* ``weights``: weight schemas with every encoding and layout variant; ``model``:
  tensors, states, program DAGs, profiles, metadata, family documents;
  ``model_rejections``: adversarial family cases.
* ``storage``: dynamic storage profiles and requirements; ``catalog``: tensor
  contracts, operations, providers, devices, catalogs and adversarial catalog documents.
* ``policy``: valid, boundary, hostile and rejected runtime-policy documents.
* ``profiles``: the ``ci`` / ``dev`` / ``fuzz`` settings profiles.
"""
