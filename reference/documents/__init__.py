"""The project's declarative documents, interpreted by the reference above the contract layers.

* ``family``: family documents (``DeclarativeFamily``, a family provider described as JSON).
* ``catalog``: catalog documents (the arguments of ``CapabilityCatalog::new``).
* ``registry`` / ``estimators``: planning registry documents, their declared contracts and
  estimators and the seed's nine estimate behaviours they name.
* ``policy`` / ``custom_policy``: runtime-policy documents and the custom policies they declare.
* ``weights``: weight materializer, registry and selection documents.

The scenario document (``reference.scenario``) composes them.
"""
