echo create
