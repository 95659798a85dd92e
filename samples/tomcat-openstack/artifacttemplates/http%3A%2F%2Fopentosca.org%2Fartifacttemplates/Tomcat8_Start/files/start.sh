#! /bin/bash
sudo nohup sh /opt/tomcat/bin/startup.sh
sleep 5
