// params:
CALL db.awaitIndexes(300)
