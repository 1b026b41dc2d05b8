"""Charging: the one service that moves money for a request, knowing nothing of HTTP.

Given who pays (`attempt.Payer`), what (a `prices.PricedItem` from the one price list) and a request id (the
ledger reference), `service.Charging.charge` settles the free allowance, an L402 token, the credit pools or the
balance, in that order, or raises `errors.PaymentRequired` with a top-up invoice and an L402 challenge;
`Charging.undo` takes back exactly what was taken. REST routes, the batch, MCP tools and RQ jobs all call it.
"""
