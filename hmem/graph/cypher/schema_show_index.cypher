// params: name
SHOW INDEXES YIELD name, type, state, options, labelsOrTypes, properties
WHERE name = $name
RETURN name, type, state, options, labelsOrTypes, properties
