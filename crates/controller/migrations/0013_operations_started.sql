-- A booking's view says whether a change to it is still to be taken by
-- its node (an operation `started`): found by booking, among the few
-- started ones.
CREATE INDEX operations_started ON operations (booking_id) WHERE state = 'started';
CREATE INDEX operations_node_started ON operations (node_id) WHERE state = 'started';
