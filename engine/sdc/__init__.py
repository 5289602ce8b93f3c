"""Statistical disclosure control risk measures of survey microdata (sdcMicro's).

The measures statistical offices compute with sdcMicro (Templ, Kowarik, Meindl, JSS
2015), with the same definitions, so that a figure here equals sdcMicro's:

* `frequencies`: each record's sample frequency ``fk`` and estimated population
  frequency ``Fk`` (the sum of the sampling weights of its key), a missing value
  matching any value as in sdcMicro's ``freqCalc``;
* `individual`: the individual risk of Benedetti and Franconi (sdcMicro's
  ``indivRisk``, methods ``approx`` and ``exact``), the global risk and expected
  re-identifications, the household (cluster) risk;
* `suda2`: SUDA2 scores, DIS-SUDA scores and attribute contributions (Elliot et al.;
  Manning, Haglin and Keane 2008; sdcMicro's ``suda2``);
* `measures`: all of them for a table, its quasi-identifiers, weight and household
  (``engine.risk``, ``anonymist risk``; docs/reference/risk-command.md);
* `roles`: the ``[data] weight`` and ``[data] household`` columns of a job.

Nothing here anonymizes; the measures read a raw or a released table.
"""
