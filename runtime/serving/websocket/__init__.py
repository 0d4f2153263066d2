"""The session WebSocket ``/ws``: frames in (``frames``, ``wire``), one ``Session`` per connection
over the turn engine (``session``), and the device tools a connection's client runs."""
